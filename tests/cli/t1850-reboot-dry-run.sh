#!/bin/sh
# hitchbench-reboot (Slurm's RebootProgram for kernel campaigns) in
# --dry-run against a copy of tests/fixtures/kernel-root (a Debian 12 node
# booted into 6.1.0-18-amd64): the commands it prints for a wish made in
# this boot (grub-reboot of the submenu's entry, or kexec -l of the image
# and its initrd), what an override of the method changes, and the plain
# reboot it falls back to with no wish, a wish of an earlier boot, a
# broken wish, a kernel grub.cfg has no entry for. Its log file says each
# step. Nothing is run: stand-ins of grub-reboot, kexec, systemctl, reboot
# and shutdown come first in PATH and record any call, and the test fails
# if one was made.
. "$(dirname "$0")/../lib.sh"
R=$HB_BUILD/hitchbench-reboot
[ -x "$R" ] || fail "no $R: build first"
cp -R "$HB_FIXTURES/kernel-root" "$T/root"
mkdir -p "$T/root/var/lib/hitchbench" "$T/root/var/log" "$T/guard"
for p in grub-reboot kexec systemctl reboot shutdown; do
	printf '#!/bin/sh\necho "%s $*" >>"%s/guard.log"\nexit 99\n' "$p" "$T" >"$T/guard/$p"
	chmod +x "$T/guard/$p"
done
PATH=$T/guard:$PATH
export HITCHBENCH_ROOT=$T/root
unset HITCHBENCH_KERNEL_WISH
W=$T/root/var/lib/hitchbench/kernel-wish
L=$T/root/var/log/hitchbench-reboot.log
BOOT=$(cat "$T/root/proc/sys/kernel/random/boot_id")

# wish KERNEL METHOD BOOT_ID: writes the wish file as ensure-kernel does
wish() {
	printf 'format=1\nkernel=%s\nmethod=%s\nboot_id=%s\nasked=1764711600\njob_id=42\nnode=n1\n' \
		"$1" "$2" "$3" >"$W"
}

# dry WHAT EXPECTED ARGS...: the dry run's stdout must be EXPECTED
dry() {
	_what=$1 _want=$2
	shift 2
	rc=0
	"$R" --dry-run "$@" >"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$_what: exit status" 0 "$rc"
	expect_eq "$_what: commands" "$_want" "$(cat "$T/out")"
}

ADV="Advanced options for Debian GNU/Linux>Debian GNU/Linux"
wish 6.1.0-17-amd64 grub "$BOOT"
dry "grub wish" "grub-reboot '$ADV, with Linux 6.1.0-17-amd64'
systemctl reboot"
grep -q '^<6>hitchbench-reboot: kernel wish: 6.1.0-17-amd64 by grub (job 42, node n1)$' "$T/err" ||
	fail "no syslog-style line for the wish: $(cat "$T/err")"
grep -q "info: (dry run) kernel 6.1.0-17-amd64: entry '$ADV, with Linux 6.1.0-17-amd64' (grub.cfg line 147" "$L" ||
	fail "the log does not say the entry: $(cat "$L")"
grep -q "info: (dry run) would run: systemctl reboot" "$L" || fail "the log does not say the reboot"

# Slurm appends the reboot's node features as one argument: taken, logged
dry "features" "grub-reboot '$ADV, with Linux 6.1.0-17-amd64'
systemctl reboot" "knl,quad"
grep -q 'asked to reboot (uid [0-9]*, features knl,quad)' "$L" || fail "the features are not logged"

# the newest kernel is the top entry; a kernel with '+' in its release
wish 6.1.0-18-amd64 grub "$BOOT"
dry "top entry" "grub-reboot 'Debian GNU/Linux'
systemctl reboot"
wish 6.1.0-13-amd64+rt grub "$BOOT"
dry "rt kernel" "grub-reboot '$ADV, with Linux 6.1.0-13-amd64+rt'
systemctl reboot"

# kexec: by the wish, or forced by --kexec; --grub forces grub
wish 6.1.0-17-amd64 kexec "$BOOT"
dry "kexec wish" "kexec -l /boot/vmlinuz-6.1.0-17-amd64 --initrd=/boot/initrd.img-6.1.0-17-amd64 --reuse-cmdline
systemctl kexec"
dry "--grub" "grub-reboot '$ADV, with Linux 6.1.0-17-amd64'
systemctl reboot" --grub
wish 6.1.0-17-amd64 grub "$BOOT"
dry "--kexec" "kexec -l /boot/vmlinuz-6.1.0-17-amd64 --initrd=/boot/initrd.img-6.1.0-17-amd64 --reuse-cmdline
systemctl kexec" --kexec
# kexec of a kernel without an initrd: refused, a plain reboot
wish 6.1.0-13-amd64+rt kexec "$BOOT"
dry "kexec, no initrd" "systemctl reboot"
grep -q 'boot/initrd.img-6.1.0-13-amd64+rt: No such file' "$T/err" || fail "no reason: $(cat "$T/err")"

# plain reboots
rm -f "$W"
dry "no wish" "systemctl reboot"
grep -q "no kernel wish ($W): a plain reboot" "$L" || fail "no wish is not logged"
wish 6.1.0-17-amd64 grub 11111111-2222-3333-4444-555555555555
dry "wish of an earlier boot" "systemctl reboot"
grep -q 'was made in an earlier boot' "$T/err" || fail "the stale wish is not said"
wish 6.5.0-1-amd64 grub "$BOOT"
dry "no grub entry" "systemctl reboot"
grep -q '^<3>hitchbench-reboot: /boot/grub/grub.cfg has no entry booting kernel 6.5.0-1-amd64' "$T/err" ||
	fail "the missing entry is not said: $(cat "$T/err")"
grep -q 'could not make the next boot kernel 6.5.0-1-amd64: rebooting into the default' "$T/err" ||
	fail "the fallback is not said"
printf 'format=1\nkernel=6.1.0-17-amd64\n' >"$W"
dry "broken wish" "systemctl reboot"
grep -q "$W: no boot_id=: a plain reboot" "$T/err" || fail "the broken wish is not said: $(cat "$T/err")"

# --wish and --log move the files
wish 6.1.0-17-amd64 grub "$BOOT"
mv "$W" "$T/elsewhere"
dry "--wish" "grub-reboot '$ADV, with Linux 6.1.0-17-amd64'
systemctl reboot" --wish "$T/elsewhere" --log "$T/other.log"
grep -q 'would run: grub-reboot' "$T/other.log" || fail "--log is not written"

rc=0
"$R" --bogus >/dev/null 2>&1 || rc=$?
expect_eq "usage" 2 "$rc"
[ ! -e "$T/guard.log" ] || fail "a dry run ran a command: $(cat "$T/guard.log")"
exit 0
