// Certificates for the local control plane (as envtest's TinyCA): a CA, the apiserver's serving cert, an admin client
// cert, a service-account key.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { realNodeGateway } from "./real-node.js";

const run = promisify(execFile);

export interface ControlPlaneCerts {
  caCert: string;
  servingCert: string;
  servingKey: string;
  /** Client certificate of the `admin` user in group system:masters. */
  adminCert: string;
  adminKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

async function openssl(cwd: string, args: string[]): Promise<void> {
  try {
    await run("openssl", args, { cwd });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT")
      throw new Error(
        "the control plane needs the openssl command to make its certificates; install it (Debian: apt-get install openssl)",
        { cause: error },
      );
    throw new Error(`openssl ${args[0]} failed: ${e.stderr ?? e.message}`, { cause: error });
  }
}

/** ECDSA P-256 keys and 7-day certificates, like envtest's; written into `dir`. */
export async function makeCerts(dir: string): Promise<ControlPlaneCerts> {
  const f = (name: string) => path.join(dir, name);
  const ecKey = (name: string) => openssl(dir, ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", name]);
  await ecKey("ca.key");
  await openssl(dir, [
    "req",
    "-x509",
    "-new",
    "-key",
    "ca.key",
    "-days",
    "7",
    "-subj",
    "/O=crdgen/CN=crdgen-envtest-ca",
    "-out",
    "ca.crt",
  ]);

  const signed = async (name: string, subject: string, extensions: string) => {
    await ecKey(`${name}.key`);
    await openssl(dir, ["req", "-new", "-key", `${name}.key`, "-subj", subject, "-out", `${name}.csr`]);
    await writeFile(f(`${name}.ext`), extensions);
    await openssl(dir, [
      "x509",
      "-req",
      "-in",
      `${name}.csr`,
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-days",
      "7",
      "-extfile",
      `${name}.ext`,
      "-out",
      `${name}.crt`,
    ]);
  };
  // Pods of a real node reach the API server as kubernetes.default.svc (the first address of the service range,
  // 10.0.0.1) or at the node's bridge gateway, where it advertises itself.
  const apiServerNames = [
    "DNS:localhost",
    "IP:127.0.0.1",
    "DNS:kubernetes",
    "DNS:kubernetes.default",
    "DNS:kubernetes.default.svc",
    "DNS:kubernetes.default.svc.cluster.local",
    "IP:10.0.0.1",
    `IP:${realNodeGateway}`,
  ].join(",");
  await signed(
    "apiserver",
    "/CN=kube-apiserver",
    [
      "basicConstraints=CA:FALSE",
      "keyUsage=digitalSignature,keyEncipherment",
      "extendedKeyUsage=serverAuth",
      `subjectAltName=${apiServerNames}`,
      "",
    ].join("\n"),
  );
  await signed(
    "admin",
    "/O=system:masters/CN=admin",
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n",
  );

  await openssl(dir, ["genrsa", "-out", "sa.key", "2048"]);
  await openssl(dir, ["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"]);
  return {
    caCert: f("ca.crt"),
    servingCert: f("apiserver.crt"),
    servingKey: f("apiserver.key"),
    adminCert: f("admin.crt"),
    adminKey: f("admin.key"),
    serviceAccountKey: f("sa.key"),
    serviceAccountPub: f("sa.pub"),
  };
}
