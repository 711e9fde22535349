#!/bin/sh
# The README's one-liner that runs scripts/audit-gems shards over hosts with
# GNU parallel --sshloginfile, on this machine: the hosts are ':' (local), an
# ssh login to an sshd on 127.0.0.1 that the test starts (a free port, a
# throwaway host key and user key in the test's temporary directory, nothing
# in ~/.ssh or /etc) and one that accepts connections but never answers. The
# ssh host goes down in the middle of its shard (the test kills its sshd and
# everything under it): the shard is retried on another host, which keeps the
# gems the dead host finished, and the merge equals one unsharded run. Skipped
# (77) without parallel or sshd, or when sshd cannot be started.
. "$(dirname "$0")/lib/common.sh"
checklist
for tool in python3 parallel ssh ssh-keygen; do
	if ! command -v $tool >/dev/null 2>&1; then
		echo "SKIP: $tool is not installed (scripts/setup --test-tools installs it)"
		exit 77
	fi
done
SSHD=$(command -v sshd || echo /usr/sbin/sshd)
if [ ! -x "$SSHD" ]; then
	echo "SKIP: sshd is not installed (scripts/setup --test-tools installs openssh-server)"
	exit 77
fi
AUDIT="$SRC/scripts/audit-gems"
C=$SRC/corpus

# sshd as root needs its privilege separation directory (Debian's service makes it)
made_run_sshd=0
if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then
	mkdir -m 0755 /run/sshd && made_run_sshd=1
fi
sshd_pid=""
silent_pid=""
cleanup() {
	[ -n "$sshd_pid" ] && kill "$sshd_pid" 2>/dev/null
	[ -n "$silent_pid" ] && kill "$silent_pid" 2>/dev/null
	[ "$made_run_sshd" = 1 ] && rmdir /run/sshd 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

freeport() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
ssh-keygen -q -t ed25519 -N '' -C nogvl-test-host -f "$T/host_key"
ssh-keygen -q -t ed25519 -N '' -C nogvl-test-user -f "$T/user_key"
cp "$T/user_key.pub" "$T/authorized_keys"
PORT=$(freeport)
cat >"$T/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $PORT
HostKey $T/host_key
AuthorizedKeysFile $T/authorized_keys
PidFile $T/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
EOF
"$SSHD" -D -f "$T/sshd_config" -E "$T/sshd.log" &
sshd_pid=$!
i=0
while ! grep -q 'Server listening' "$T/sshd.log" 2>/dev/null; do
	if [ $i -ge 50 ] || ! kill -0 "$sshd_pid" 2>/dev/null; then
		echo "SKIP: sshd cannot be started:"
		cat "$T/sshd.log" 2>/dev/null
		exit 77
	fi
	sleep 0.1
	i=$((i + 1))
done
# a host that accepts connections and never says a word
SILENT=$(freeport)
python3 -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); c = []
while True:
    c.append(s.accept())
    with open(sys.argv[2], "a") as f: f.write("connection\n")' "$SILENT" "$T/silent.log" &
silent_pid=$!
cat >"$T/ssh_config" <<EOF
Host looped silent
  HostName 127.0.0.1
  User $(id -un)
  IdentityFile $T/user_key
  IdentitiesOnly yes
  UserKnownHostsFile $T/known_hosts
  StrictHostKeyChecking accept-new
  BatchMode yes
  ConnectTimeout 3
Host looped
  Port $PORT
Host silent
  Port $SILENT
EOF
if ! ssh -F "$T/ssh_config" looped true 2>ssh.err; then
	echo "SKIP: cannot log in to the test's sshd:"
	cat ssh.err "$T/sshd.log"
	exit 77
fi

cat >gems.list <<EOF
digest=$C/examples/digest_ext
$C/ruby-api-without-gvl/cross_file
$C/offload-candidate
$C/offload-unsafe
$C/ubf-ignored
$C/unfrozen-input
$C/missing-gc-guard
nosuch=$T/no-such-gem
EOF
# one unsharded run to compare with
python3 "$AUDIT" --nogvl-lint "$BIN" --cache "$T/cache" --list gems.list --out full >out.txt 2>err.txt
check "the unsharded run" is "$?" 0

# the hosts: this one, the ssh login, the silent one (one job each)
printf '1/:\n1/ssh -F %s/ssh_config looped\n1/ssh -F %s/ssh_config silent\n' "$T" "$T" >hosts
export PARALLEL_HOME="$T/parallel-home"
mkdir -p "$PARALLEL_HOME" out

# the README's one-liner (N=3: a shard for each host at the start), with this test's paths, in the background
N=3
parallel --will-cite --sshloginfile hosts --retries 3 --timeout 600 --joblog joblog \
	--return "out/shard-{}-of-$N" --workdir "$T" \
	python3 "$AUDIT" --nogvl-lint "$BIN" --cache "$T/cache" --list gems.list --shard "{}/$N" \
	--out "out/shard-{}-of-$N" ::: $(seq $N) >parallel.out 2>parallel.err &
ppid_=$!

# the ssh host goes down once its shard has finished a gem: stop sshd and
# everything under it (so nothing of it writes on), then kill them
python3 - "$sshd_pid" "$ppid_" >killed.txt <<'PYEOF'
import os, re, signal, sys, time
root = int(sys.argv[1])

def children():
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    st = f.read()
                kids.setdefault(int(st[st.rindex(")") + 2:].split()[1]), []).append(int(p))
            except (OSError, ValueError):
                pass
    return kids

def tree():
    kids, out, todo = children(), [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out

deadline = time.monotonic() + 150
shard_dir = None
def running(pid):  # not gone, not a zombie
    try:
        with open("/proc/%s/stat" % pid) as f:
            st = f.read()
        return st[st.rindex(")") + 2] != "Z"
    except (OSError, ValueError):
        return False

while time.monotonic() < deadline and shard_dir is None and running(sys.argv[2]):
    for p in tree():
        try:
            with open("/proc/%d/cmdline" % p, "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if any(a.endswith("audit-gems") for a in argv) and "--out" in argv:
            d = argv[argv.index("--out") + 1]
            gems = os.path.join(d, "gems")
            done = [x for x in os.listdir(gems) if x.endswith(".state.json")] if os.path.isdir(gems) else []
            if done:
                shard_dir = d
                break
    time.sleep(0.05)
if shard_dir is None:
    print("no shard ran on the ssh host")
    sys.exit(1)
stopped = set()
while True:  # freeze the whole tree, including anything forked meanwhile
    new = [p for p in tree() if p not in stopped]
    if not new:
        break
    for p in new:
        try:
            os.kill(p, signal.SIGSTOP)
        except OSError:
            pass
        stopped.add(p)
n = len([x for x in os.listdir(os.path.join(shard_dir, "gems")) if x.endswith(".state.json")])
for p in stopped:
    try:
        os.kill(p, signal.SIGKILL)
    except OSError:
        pass
print("%s %d" % (os.path.basename(shard_dir), n))
PYEOF
krc=$?
wait $ppid_
prc=$?
sshd_pid=""
cat killed.txt
check "the ssh host ran a shard and went down in the middle" is "$krc" 0
read -r killed_shard killed_done <killed.txt
check "parallel: exit 0 (every shard done in the end)" is "$prc" 0
[ "$prc" -eq 0 ] || { cat joblog parallel.err; }
# the joblog: the killed shard failed on the ssh host, then succeeded on ':'
k=${killed_shard#shard-}
k=${k%-of-$N}
# (the joblog keeps a job's last attempt only)
check "the retried shard resumed from what the dead host left" has parallel.err 'kept from an earlier run (same tool, same files)'
check "the silent host was tried" test -s "$T/silent.log"
check "joblog: then it succeeded on the local host" sh -c \
	"awk -F'\t' '\$2 == \":\" && \$7 == 0 && \$9 ~ /--shard $k\\/$N /' joblog | grep -q ."
check "joblog: nothing ran on the silent host" sh -c "! awk -F'\t' '\$2 ~ /silent/' joblog | grep -q ."
check "joblog: every shard succeeded once" is "$(awk -F'\t' 'NR > 1 && $7 == 0' joblog | wc -l)" "$N"
check "the retry kept the gems the dead host had finished" test "$killed_done" -ge 1
check "the shards" test -f "out/shard-1-of-$N/shard.json" -a -f "out/shard-2-of-$N/shard.json" -a -f "out/shard-3-of-$N/shard.json"

python3 "$AUDIT" --merge out/shard-*-of-$N --out merged >out.txt 2>err.txt
check "merge: exit 0" is "$?" 0
check "nothing lost or doubled: every gem once" is \
	"$(jq -r '.entries[].index' merged/shard.json | tr '\n' ' ')" "0 1 2 3 4 5 6 7 "
for f in summary.md index.html; do
	sed 's/ · [0-9]* s$//' full/$f >a.cmp
	sed 's/ · [0-9]* s$//' merged/$f >b.cmp
	check "merge: $f as one run's" cmp a.cmp b.cmp
done
check "merge: audit.json as one run's" is "$(jq -S -c 'del(.seconds, .gems[].seconds)' merged/audit.json)" \
	"$(jq -S -c 'del(.seconds, .gems[].seconds)' full/audit.json)"
check "nothing installed into ~/.ssh" sh -c "! grep -q -s nogvl-test ~/.ssh/authorized_keys ~/.ssh/known_hosts"
finish
