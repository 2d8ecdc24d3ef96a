// What bench/generate.ts hands the scripts that run a peer in one process over the corpus (generate-cdk8s.ts,
// generate-jstt.ts), and what they hand back: the CRD files as a JSON list, and the files that crashed.

/** A CRD file of the corpus; `dir` (`<project>/<stem>`) is the folder its output goes to. */
export interface CorpusFile {
  name: string;
  path: string;
  dir: string;
  project: string;
}

/** A CRD file whose run threw, with the first 300 characters of the error. */
export interface Crash {
  file: string;
  error: string;
}

export function crashOf(file: CorpusFile, error: unknown): Crash {
  return { file: file.name, error: (error instanceof Error ? error.message : String(error)).slice(0, 300) };
}

/** `<files.json> <out dir> <peers dir> [options as JSON]`, or a usage error. */
export function peerArgs(argv: string[]): { listFile: string; outDir: string; peersDir: string; options?: string } {
  const [listFile, outDir, peersDir, options] = argv;
  if (!listFile || !outDir || !peersDir)
    throw new Error("usage: <files.json> <out dir> <peers dir> [options as JSON] (bench/generate.ts passes them)");
  return options === undefined ? { listFile, outDir, peersDir } : { listFile, outDir, peersDir, options };
}
