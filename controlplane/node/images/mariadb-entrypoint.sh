#!/bin/bash
# The MariaDB image's entrypoint (Debian's mariadb-server), with the contract of the mysql image that the sample's
# StatefulSet relies on: MYSQL_ROOT_PASSWORD sets root's password (for localhost and '%') when /var/lib/mysql is
# empty; the my.cnf fragments mounted at /etc/mysql/conf.d apply; the server listens on 3306 on every address.
# MySQL-only options in those fragments (e.g. log-error-verbosity) would stop mariadbd, so they are read with the
# loose- prefix: MariaDB applies the options it knows and warns about the rest.
set -euo pipefail

datadir=/var/lib/mysql
run=/run/mysqld
mkdir -p "$run/conf.d"
chown mysql:mysql "$run"
rm -f "$run"/conf.d/*
for f in /etc/mysql/conf.d/*.cnf; do
  [[ -f "$f" ]] || continue
  # Every option line (not a [section], comment, !include or blank line) gets loose-.
  sed -E '/^[[:space:]]*([#;[!]|$)/!s/^[[:space:]]*(loose-)?/loose-/' "$f" >"$run/conf.d/$(basename "$f")"
done
cat >"$run/my.cnf" <<CNF
[mysqld]
user=mysql
datadir=$datadir
socket=$run/mysqld.sock
bind-address=0.0.0.0
port=3306
!includedir $run/conf.d
CNF
defaults=(--defaults-file="$run/my.cnf")

if [[ ! -d "$datadir/mysql" ]]; then
  [[ -n "${MYSQL_ROOT_PASSWORD:-}" ]] || { echo "entrypoint: MYSQL_ROOT_PASSWORD is empty" >&2; exit 1; }
  # Initialised aside and moved in at the end, so that an interrupted start begins again from scratch.
  init="$datadir/.crdgen-init"
  echo "entrypoint: initialising $datadir" >&2
  rm -rf "$init"
  mkdir -p "$init"
  chown -R mysql:mysql "$datadir"
  mariadb-install-db "${defaults[@]}" --datadir="$init" --force --auth-root-authentication-method=normal \
    --skip-test-db >&2
  mariadbd "${defaults[@]}" --datadir="$init" --skip-networking --socket="$run/init.sock" &
  init_pid=$!
  for _ in $(seq 1 120); do
    mariadb-admin --socket="$run/init.sock" -uroot ping >/dev/null 2>&1 && break
    sleep 0.5
  done
  pw="${MYSQL_ROOT_PASSWORD//\\/\\\\}"
  pw="${pw//\'/\\\'}"
  # The mysql image's initdb folder (*.sql, *.sql.gz, e.g. a dump the restore step staged), then the password, all in
  # one session: a dump of all databases brings the source's users and may flush them, which would end a fresh
  # login. Only root@localhost and root@'%' stay, both with this cluster's password (mariadb-install-db also makes
  # root@127.0.0.1, root@::1 and root@<hostname> without one, which would win over '%' for those hosts).
  {
    for f in /docker-entrypoint-initdb.d/*; do
      case "$f" in
      *.sql) echo "entrypoint: loading $f" >&2 && cat "$f" ;;
      *.sql.gz) echo "entrypoint: loading $f" >&2 && gzip -dc "$f" ;;
      *) [[ ! -e "$f" ]] || echo "entrypoint: ignoring $f" >&2 ;;
      esac
    done
    cat <<SQL
DELETE FROM mysql.global_priv WHERE User IN ('root', '') AND Host NOT IN ('localhost');
FLUSH PRIVILEGES;
ALTER USER 'root'@'localhost' IDENTIFIED BY '$pw';
CREATE USER 'root'@'%' IDENTIFIED BY '$pw';
GRANT ALL PRIVILEGES ON *.* TO 'root'@'%' WITH GRANT OPTION;
FLUSH PRIVILEGES;
SQL
  } | mariadb --socket="$run/init.sock" -uroot
  kill -TERM "$init_pid"
  wait "$init_pid" || true
  find "$init" -mindepth 1 -maxdepth 1 -exec mv -t "$datadir" {} +
  rmdir "$init"
  echo "entrypoint: initialised" >&2
fi
exec mariadbd "${defaults[@]}" "$@"
