# hitchbench: one non-recursive Makefile.
#
#   make               build everything into build/ (the manual pages too)
#   make man           only the manual pages (docs/man/*.scd, scdoc) into build/man/
#   make check         install what is missing (Debian packages), build, run every test
#   make check-quick   the inner loop: no real game, no build of the whole tree, no run over ssh
#   make check-flaky   the tests that depend on timing, 20 times each beside a CPU hog
#   make check-sanitize  the same tests on an AddressSanitizer/UBSan build
#   make demo          install what is missing, build, run the default recipe, print its report
#   make bench-self    the observers' own cost, and report against pandas (a benchmark, not a test)
#   make bench-quiet   quieted runs against plain ones: how much they vary
#   make bench-prefetch  the game prefetch against none: OpenArena's load time, cold cache (root)
#   make bench-lab     the lab's database: imports a second, concurrent writers; a matrix over 100,000 runs
#   make bench-matrix  the batches of recipes/matrix.ini, then results/matrix/*.csv (QUICK=1: a short check)
#   make fuzz FUZZ_S=N  every tests/fuzz/fuzz-*.c libFuzzer target (clang, ASan, UBSan,
#                      leaks) for N seconds each (default 10) on a copy of its seed corpus,
#                      then one line per target: executions, exec/s, corpus, findings
#                      (kept under build/fuzz/findings/NAME/); exit 1 on any finding.
#                      `make fuzz-targets` only builds them (tests/fuzz/README.md)
#   make install PREFIX=/usr/local [DESTDIR=...]  by the FHS (docs/install.md): hitchbench
#                      in PREFIX/bin, helpers and hook in PREFIX/lib/hitchbench, recipes
#                      and gamedb in PREFIX/share/hitchbench, the Vulkan layer's manifest in
#                      PREFIX/share/vulkan/implicit_layer.d (naming the installed hook)
#   make uninstall     the same PREFIX and DESTDIR: removes what install put
#   make dist          build/hitchbench-VERSION.tar.gz, with its VERSION file
#   make check-package the Debian package built, lintian, installed in a clean
#                      Debian 12 root, a run of the default recipe there (root)
#   make ARCH=s390x    a cross build (ppc64, arm64 alike) into build/cross/ARCH/, the unit
#                      tests included; with install, the same tree as a native install
#   make check-cross   the formats on a big-endian machine: s390x under qemu-user (t1700)
#
# The layers are walled (docs/layout.md): one archive per layer, each
# compiled with its own include path, so an include across a wall fails to
# compile and a call across one fails to link:
#   common/    libcommon.a    sees common/ only          depends on nothing of ours
#   analysis/  libanalysis.a  sees common/, analysis/     links libcommon.a alone
#   bench/     librunner.a    sees all three              the hitchbench command
#   harness/   one program each, sees common/, harness/   links libcommon.a alone
#   the hook   harness/framehook*.c: the header common/formats/frames.h, libc and libdl
#              (the GL hook and the Vulkan layer; Vulkan's headers, no libvulkan)
# `all` links common and analysis as shared objects with -z defs (build/walls/),
# which fails on any call out of their layer.
#
# Sources are found by wildcard: a new .c file in common/, analysis/ or bench/
# joins its layer's archive; hitchbench-PROG is harness/PROG.c or
# harness/PROG-main.c with every harness/PROG-*.c; a new tests/unit/*.c file
# joins the unit-test binary, a new tests/*/tNNNN-*.sh script is run by
# tests/run.sh, a new tests/fuzz/fuzz-NAME.c is a fuzz target with its seeds in
# tests/fuzz/corpus/NAME/. Nothing is listed twice.

# A cross build (make ARCH=s390x): Debian's architecture name, the GNU
# triplet of its cross compiler, objects in build/cross/ARCH/, libraries
# from the sysroot scripts/cross-sysroot.sh makes there (docs/formats.md,
# "Byte order"). Without ARCH, the native build, unchanged.
ARCH     ?=
ifneq ($(ARCH),)
TRIPLET_s390x := s390x-linux-gnu
TRIPLET_ppc64 := powerpc64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
TRIPLET_amd64 := x86_64-linux-gnu
TRIPLET  := $(TRIPLET_$(ARCH))
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH): not a Debian architecture this Makefile knows (s390x, ppc64, arm64, amd64))
endif
B        ?= build/cross/$(ARCH)
SYSROOT  ?= $(CURDIR)/build/cross/$(ARCH)/sysroot
ifeq ($(origin CC),default)
CC       := $(TRIPLET)-gcc
endif
ifneq ($(filter-out clean check-cross,$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(SYSROOT)/.sysroot-stamp),)
$(error ARCH=$(ARCH): no sysroot in $(SYSROOT): make it with 'sh scripts/cross-sysroot.sh $(ARCH) $(SYSROOT)' (root the first time, for dpkg --add-architecture))
endif
endif
AR       := $(TRIPLET)-ar
# make 4.3 does not pass exported variables to $(shell): the environment
# is part of the command
PKG_CONFIG := PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=$(SYSROOT)/usr/lib/$(TRIPLET)/pkgconfig:$(SYSROOT)/usr/share/pkgconfig \
              PKG_CONFIG_SYSROOT_DIR=$(SYSROOT) pkg-config
# the sysroot's headers are system headers (no warnings of theirs), its
# libraries found at link time, and the libraries they need in turn
CPPFLAGS += -isystem $(SYSROOT)/usr/include -isystem $(SYSROOT)/usr/include/$(TRIPLET)
CROSS_LIB := $(SYSROOT)/usr/lib/$(TRIPLET):$(SYSROOT)/lib/$(TRIPLET)
LDFLAGS  += -L$(SYSROOT)/usr/lib/$(TRIPLET) -L$(SYSROOT)/lib/$(TRIPLET) -Wl,-rpath-link,$(CROSS_LIB)
endif
PKG_CONFIG ?= pkg-config

# Where make install puts each file (docs/install.md): hitchbench alone in
# BINDIR; the helpers and the hook in LIBDIR, found from the program's own
# place (PREFIX/bin/../lib/hitchbench), so an installed tree can move; the
# recipes and gamedb in DATADIR. A man page of MAN_PAGES (built pages,
# $(B)/man/NAME.N) goes to MANDIR/manN; COMPLETION_BASH and COMPLETION_ZSH
# (source files) to the completion directories; each only when set.
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBDIR   := $(PREFIX)/lib/hitchbench
DATADIR  := $(PREFIX)/share/hitchbench
MANDIR   ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
CC       ?= cc
CFLAGS   ?= -O2 -g
QUICK    ?= 0
B        ?= build

# The version (scripts/version.sh, docs/install.md "Versions"): git describe
# of the last vX.Y.Z tag, else the VERSION file of a `make dist` tarball,
# else VERSION_FALLBACK (the package build passes debian/changelog's).
VERSION_FALLBACK ?=
VERSION  := $(shell HB_VERSION_FALLBACK='$(VERSION_FALLBACK)' sh scripts/version.sh '$(CURDIR)')
WARN     := -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes -Wstrict-prototypes
CPPFLAGS += -D_GNU_SOURCE -MMD -MP $(shell $(PKG_CONFIG) --cflags libevdev)
# gcc fuses a * b - c into one instruction where the machine has one
# (s390x, ppc64, arm64; not x86-64's baseline), which rounds otherwise:
# MangoHud's 1% low index, 0.01f * 200 - 1, is 1 unfused and just under
# it fused. Off in every build (cross, native, on a target), so that every
# machine computes what the host computes.
ALL_CFLAGS = $(WARN) $(CFLAGS) -std=gnu11 -fPIC -ffp-contract=off

# pkg-config is asked when a recipe runs (recursive '='), so 'make check' on a
# machine that lacks a -dev package can install it first and still link.
LIBS       = $(shell $(PKG_CONFIG) --libs inih sqlite3 libpq nettle libzstd json-c libcap-ng) -lm
CHECK_LIBS = $(shell $(PKG_CONFIG) --libs check)
# elfutils: the profile recorder reads build ids, the profile's analysis
# names functions (libdwfl)
DW_LIBS    = $(shell $(PKG_CONFIG) --libs libdw libelf)
GL_LIBS    = $(shell $(PKG_CONFIG) --libs x11 gl)
# What resolves a recipe's [input] key names (common/input/inputsteps.c) and plays them
INPUT_LIBS = $(shell $(PKG_CONFIG) --libs x11 libevdev)
XTEST_LIBS = $(shell $(PKG_CONFIG) --libs xtst x11 libevdev)

COMMON_OBJ   := $(patsubst %.c,$(B)/%.o,$(wildcard common/*/*.c))
ANALYSIS_OBJ := $(patsubst %.c,$(B)/%.o,$(wildcard analysis/*/*.c))
RUNNER_OBJ   := $(patsubst %.c,$(B)/%.o,$(wildcard bench/*/*.c))
LIB_OBJ      := $(COMMON_OBJ) $(ANALYSIS_OBJ) $(RUNNER_OBJ)
# What each layer's sources see. Tests see every layer (and harness/ for the
# input driver the uinput device test borrows).
$(B)/common/%.o:   LAYER_INC := -Icommon
$(B)/analysis/%.o: LAYER_INC := -Icommon -Ianalysis
$(B)/bench/%.o:    LAYER_INC := -Icommon -Ianalysis -Ibench -I$(B)/gen
# libpq's header, for the one file that speaks to PostgreSQL (bench/db/sqldb-pg.c)
$(B)/bench/db/sqldb-pg.o: LAYER_INC += $(shell $(PKG_CONFIG) --cflags-only-I libpq)
$(B)/harness/%.o:  LAYER_INC := -Icommon -Iharness
LAYER_INC ?= -Icommon -Ianalysis -Ibench
# The archives in link order: a layer before the ones it uses.
COMMON_A   := $(B)/libcommon.a
ANALYSIS_A := $(B)/libanalysis.a
RUNNER_A   := $(B)/librunner.a
HITCH_A    := $(RUNNER_A) $(ANALYSIS_A) $(COMMON_A)
UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_OBJ  := $(UNIT_SRC:%.c=$(B)/%.o)

# The Vulkan layer's manifest, under build/ and under PREFIX
VK_MANIFEST    := share/vulkan/implicit_layer.d/VkLayer_hitchbench.json
VK_MANIFEST_IN := harness/VkLayer_hitchbench.json.in
PROGS := $(B)/hitchbench $(B)/hitchbench-hook.so $(B)/hitchbench-wadlump $(B)/hitchbench-sampler \
         $(B)/hitchbench-stallrec $(B)/hitchbench-profrec $(B)/hitchbench-input $(B)/hitchbench-intfwatch \
         $(B)/hitchbench-waker $(B)/hitchbench-prefetch $(B)/hitchbench-reboot
TEST_PROGS := $(B)/tests/unit-tests $(B)/tests/present $(B)/tests/libhbstub.so $(B)/tests/fakegame $(B)/tests/glgame \
              $(B)/tests/mkframes $(B)/tests/glxparse $(B)/tests/mhsummary $(B)/tests/mkstallrun \
              $(B)/tests/recdump $(B)/tests/sleeper $(B)/tests/procwatch $(B)/tests/uinputdev \
              $(B)/tests/fifohog $(B)/tests/seqsim $(B)/tests/vkchain $(B)/tests/vkpresent $(B)/tests/tstamp $(B)/tests/waitline \
              $(B)/tests/mkstallrec

# The manual pages: docs/man/NAME.N.scd, by scdoc, into $(B)/man/NAME.N
# (found by wildcard: a new page is one new file). The shell completions
# are installed as they are. tests/cli/t0030-man-completion.sh keeps both
# in step with every command's --help.
MAN_SRC        := $(wildcard docs/man/*.scd)
MAN_PAGES      := $(patsubst docs/man/%.scd,$(B)/man/%,$(MAN_SRC))
COMPLETION_BASH := completion/hitchbench.bash
COMPLETION_ZSH  := completion/_hitchbench

all: $(PROGS) $(B)/$(VK_MANIFEST) $(B)/walls/common.so $(B)/walls/analysis.so $(B)/walls/runner.so $(MAN_PAGES)

$(B)/man/%: docs/man/%.scd
	@mkdir -p $(@D)
	scdoc <$< >$@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)
.PHONY: man

# A cross build's all also makes the unit tests and the tools that the
# formats' proof runs under qemu-user (check-cross below).
CROSS_TESTS := $(B)/tests/unit-tests $(B)/tests/mkframes $(B)/tests/present $(B)/tests/libhbstub.so \
               $(B)/tests/recdump $(B)/tests/mkstallrun $(B)/tests/mkstallrec
ifneq ($(ARCH),)
all: $(CROSS_TESTS)
endif

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(LAYER_INC) $(CPPFLAGS) $(ALL_CFLAGS) -DHB_SRCDIR='"$(CURDIR)"' -c -o $@ $<

# The version goes into bench.txt: regenerated on every make,
# rewritten only when it changed, so what depends on it rebuilds only then.
$(B)/gen/version.h: FORCE
	@mkdir -p $(@D)
	@v='#define HB_VERSION "$(VERSION)"'; [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" >$@

$(B)/bench/main.o $(B)/bench/runner/provenance.o $(B)/bench/cmd/cmd-site.o: $(B)/gen/version.h

$(COMMON_A): $(COMMON_OBJ)
$(ANALYSIS_A): $(ANALYSIS_OBJ)
$(RUNNER_A): $(RUNNER_OBJ)
$(COMMON_A) $(ANALYSIS_A) $(RUNNER_A):
	@rm -f $@
	$(AR) rcs $@ $^

# The walls' link half: a layer's objects linked alone (with the layers under
# it) into a shared object that may leave nothing undefined. A call into a
# layer above fails here, by name, even where a static link would not notice.
# The library layers are linked without the message module
# (common/base/message.c): library code returns its errors and never
# prints, so a call to error_msg() from it fails here too. The runner's
# machinery (bench/ without cmd/ and main.c) is walled from the commands
# the same way: a call to usage_error(), error_msg() or cmd_db_open() fails.
COMMON_LIBS = $(LIBS) $(shell $(PKG_CONFIG) --libs x11 libevdev) $(DW_LIBS)
MESSAGE_OBJ := $(B)/common/base/message.o
LIBRARY_COMMON_OBJ := $(filter-out $(MESSAGE_OBJ),$(COMMON_OBJ))
RUNNER_CORE_OBJ := $(filter-out $(B)/bench/cmd/%,$(RUNNER_OBJ))
$(B)/walls/common.so: $(COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs -o $@ $^ $(COMMON_LIBS)
$(B)/walls/analysis.so: $(ANALYSIS_OBJ) $(LIBRARY_COMMON_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs -o $@ $^ $(COMMON_LIBS)

# The database schema is a list of migrations (bench/db/schema/NNNN-*.sql),
# compiled into the program so a run can create or upgrade any database.
$(B)/gen/schema.c: $(sort $(wildcard bench/db/schema/*.sql)) scripts/embed-sql.sh
	@mkdir -p $(@D)
	sh scripts/embed-sql.sh $(sort $(wildcard bench/db/schema/*.sql)) > $@.tmp && mv $@.tmp $@

$(B)/gen/schema.o: $(B)/gen/schema.c
	$(CC) -Icommon -Ianalysis -Ibench $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# The Vulkan layer's manifest template, compiled into the runner, which
# fills in the hook it preloads (bench/runner/vklayer.c); the same file makes the
# build tree's and the installed manifest (below).
$(B)/gen/vkmanifest.c: $(VK_MANIFEST_IN) scripts/embed-text.sh
	@mkdir -p $(@D)
	sh scripts/embed-text.sh vklayer_manifest_template $(VK_MANIFEST_IN) > $@.tmp && mv $@.tmp $@

$(B)/gen/vkmanifest.o: $(B)/gen/vkmanifest.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

GEN_OBJ := $(B)/gen/schema.o $(B)/gen/vkmanifest.o

# the runner's wall (above), with what it embeds
$(B)/walls/runner.so: $(RUNNER_CORE_OBJ) $(ANALYSIS_OBJ) $(LIBRARY_COMMON_OBJ) $(GEN_OBJ)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-z,defs -o $@ $^ $(COMMON_LIBS) $(INPUT_LIBS)

$(B)/hitchbench: $(B)/bench/main.o $(HITCH_A) $(GEN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(INPUT_LIBS) $(DW_LIBS)

# The frame hook is preloaded into games and loaded as their Vulkan layer:
# libc and libdl alone, and of ours only the frame file's header (-z defs:
# any call into common/ fails to link). Its parts, harness/framehook*.c,
# are compiled apart from the helpers' objects (build/hook/), hidden but
# for what the game or the loader must see; -z nodelete because the
# Vulkan loader dlclose()s a layer at vkDestroyInstance, and the hook's
# fork handler and thread-locals must outlive that.
HOOK_OBJ := $(patsubst harness/%.c,$(B)/hook/%.o,$(wildcard harness/framehook*.c))
$(B)/hook/%.o: harness/%.c
	@mkdir -p $(@D)
	$(CC) -Icommon $(CPPFLAGS) $(ALL_CFLAGS) -fvisibility=hidden -c -o $@ $<
$(B)/hitchbench-hook.so: $(HOOK_OBJ)
	$(CC) $(LDFLAGS) -shared -Wl,-z,defs -Wl,-z,nodelete -o $@ $^ -ldl -pthread

# The layer's manifest (harness/VkLayer_hitchbench.json.in): in build/, with
# the hook's path relative to the manifest, so that XDG_DATA_HOME=build/share
# HITCHBENCH_VULKAN=1 loads the uninstalled layer; installed, with the
# absolute path of the installed hook (install, below).
$(B)/$(VK_MANIFEST): $(VK_MANIFEST_IN)
	@mkdir -p $(@D)
	sed 's|@LIBRARY_PATH@|../../../hitchbench-hook.so|' $< >$@.tmp && mv $@.tmp $@

# The helper programs, each linking libcommon.a alone: hitchbench-PROG is
# harness/PROG.c or harness/PROG-main.c with every harness/PROG-*.c.
#   wadlump    a WAD's lumps, for the Doom recipes
#   sampler    beside every run (nice 10), writing sensors.tsv.zst
#   stallrec   the stall recorder (the STALLS switch): root's, every 10 ms
#   profrec    the profile recorder (the PROFILE switch): root's, perf events on
#              the game's threads, their maps' build ids read with libdw
#   input      a recipe's [input] steps into the game (XTest or uinput), root's
#   intfwatch  the interference watcher: input devices (libevdev), their coming
#              and going (libudev), VTs, logins, processes, the kernel log
#   waker      the waker and the probe (WAKER, PROBE): threads pinned per CPU
#   prefetch   the learning game prefetch (GAMEPREFETCH): learn, fetch, run
#   reboot     Slurm's RebootProgram on a lab node: the wished kernel, then reboot
HELPERS := wadlump sampler stallrec profrec input intfwatch waker prefetch reboot
harness_objs = $(patsubst %.c,$(B)/%.o,$(wildcard harness/$(1).c harness/$(1)-*.c))
HELPER_LIBS_sampler   = $(LIBS)
HELPER_LIBS_stallrec  = $(LIBS) $(STALLBPF_LIBS)
# the input helper alone links libevemu: a recipe's play makes a recorded
# device and plays it (harness/input-play.c)
HELPER_LIBS_input     = $(LIBS) $(XTEST_LIBS) $(shell $(PKG_CONFIG) --libs evemu)
$(B)/harness/input-play.o: LAYER_INC += $(shell $(PKG_CONFIG) --cflags-only-I evemu)
HELPER_LIBS_intfwatch = $(LIBS) $(shell $(PKG_CONFIG) --libs libevdev libudev)
HELPER_LIBS_waker     = $(LIBS) -pthread
HELPER_LIBS_prefetch  = $(LIBS)
HELPER_LIBS_profrec   = $(LIBS) $(DW_LIBS)

# The stall recorder's kernel program (STALLS=bpf; docs/stalls.md): clang
# compiles harness/bpf/stallbpf.bpf.c to BPF for this machine's byte order,
# bpftool makes the skeleton the recorder includes (the object inside it),
# libbpf loads it. A cross build, or STALLBPF=0, makes a recorder without it
# that says so and samples (Debian 12's bpftool cannot open an object of the
# other byte order).
STALLBPF ?= $(if $(ARCH),0,1)
BPFTOOL  ?= $(or $(shell command -v bpftool),/usr/sbin/bpftool)
BPF_MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null || echo $$(uname -m)-linux-gnu)
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/; s/ppc64.*/powerpc/; s/s390x/s390/')
STALLBPF_OBJ := $(B)/harness/stallrec-bpf.o $(B)/harness/stallrec-bpfwrite.o
ifeq ($(STALLBPF),1)
$(B)/bpf/stallbpf.bpf.o: harness/bpf/stallbpf.bpf.c harness/bpf/stallbpf-kern.h harness/bpf/stallbpf-event.h
	@mkdir -p $(@D)
	clang -g -O2 -Wall -Werror -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) \
		-I/usr/include/$(BPF_MULTIARCH) -Iharness/bpf -c -o $@ $<
$(B)/gen/stallbpf.skel.h: $(B)/bpf/stallbpf.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name stallbpf_skel >$@.tmp && mv $@.tmp $@
$(STALLBPF_OBJ): $(B)/gen/stallbpf.skel.h
$(STALLBPF_OBJ): LAYER_INC += -I$(B)/gen
STALLBPF_LIBS = $(shell $(PKG_CONFIG) --libs libbpf)
else
$(STALLBPF_OBJ): CPPFLAGS += -DHB_NO_BPF
STALLBPF_LIBS =
endif

.SECONDEXPANSION:
$(HELPERS:%=$(B)/hitchbench-%): $(B)/hitchbench-%: $$(call harness_objs,$$*) $(COMMON_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(HELPER_LIBS_$*)

$(B)/tests/unit-tests: $(UNIT_OBJ) $(B)/tests/tools/stallrun.o $(HITCH_A) $(GEN_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(INPUT_LIBS) $(DW_LIBS) $(CHECK_LIBS)

# bench-self: a program that presents as fast as it can, through a real
# GLX window (Xvfb) or through a stub present library (the hook's cost alone).
$(B)/tests/present: $(B)/tests/tools/present.o $(B)/tests/tools/glxwindow.o $(HITCH_A) $(B)/tests/libhbstub.so
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/tools/present.o $(B)/tests/tools/glxwindow.o $(HITCH_A) $(GL_LIBS) -ldl

# The same for Vulkan: a swapchain on an Xlib window (lavapipe on Xvfb),
# cleared and presented, for bench-self and the layer's tests.
$(B)/tests/vkpresent: $(B)/tests/tools/vkpresent.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs vulkan x11)

# The Vulkan layer alone between a stand-in loader and driver (t0120, bench-self).
$(B)/tests/vkchain: $(B)/tests/tools/vkchain.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ -ldl

$(B)/tests/libhbstub.so: tests/tools/stub.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -shared -o $@ $< -ldl

# A fake game for the runner's tests: presents through the stub, prints lines, exits on
# cue, prints the X input it gets (--x-input).
$(B)/tests/fakegame: $(B)/tests/tools/fakegame.o $(B)/tests/tools/stallways.o $(HITCH_A) \
		$(B)/tests/libhbstub.so
	$(CC) $(LDFLAGS) -o $@ $(B)/tests/tools/fakegame.o $(B)/tests/tools/stallways.o \
		$(HITCH_A) -ldl -pthread $(shell $(PKG_CONFIG) --libs x11)

# A fake game on real GL (llvmpipe on Xvfb): a shader compiled and a named CPU loop on cue.
# Frame pointers and -rdynamic, so a profiler walking the stack names its functions.
$(B)/tests/tools/glgame.o: ALL_CFLAGS += -fno-omit-frame-pointer
$(B)/tests/glgame: $(B)/tests/tools/glgame.o $(B)/tests/tools/glxwindow.o $(HITCH_A)
	$(CC) $(LDFLAGS) -rdynamic -o $@ $^ $(GL_LIBS)

# The paired sequential test's error rates and pairs to a verdict, simulated (bench-self).
$(B)/tests/seqsim: $(B)/tests/tools/seqsim.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# Reads and makes frame files for the hook's test and bench-self.
$(B)/tests/mkframes: $(B)/tests/tools/mkframes.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# The hand-made stall run (tests/tools/stallrun.c, also in the unit tests) for t1000.
$(B)/tests/mkstallrun: $(B)/tests/tools/mkstallrun.o $(B)/tests/tools/stallrun.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Parses glxinfo -B output (and runs the probe) for t0500.
$(B)/tests/glxparse: $(B)/tests/tools/glxparse.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^

# MangoHud's summary from a MangoHud log, for t9040.
# The CPU a bare 10 ms sleeper pays per wakeup: the floor under the recorder (bench-self).
$(B)/tests/sleeper: $(B)/tests/tools/sleeper.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^

# A stall record as text, for the recorder's tests.
$(B)/tests/recdump: $(B)/tests/tools/recdump.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# A stall record made the recorder's way, live then packed, for t1700.
$(B)/tests/mkstallrec: $(B)/tests/tools/mkstallrec.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Each line of stdin after the wall-clock time it came: the test sshd's log (tests/lib.sh).
$(B)/tests/tstamp: $(B)/tests/tools/tstamp.o
	$(CC) $(LDFLAGS) -o $@ $^

# Waits for lines in a file without starting a process: tests that watch a run (t1610).
$(B)/tests/waitline: $(B)/tests/tools/waitline.o
	$(CC) $(LDFLAGS) -o $@ $^

# A pinned SCHED_FIFO busy loop: the known delay the probe's test injects (t1300).
$(B)/tests/fifohog: $(B)/tests/tools/fifohog.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^

# The process watcher on the live machine (t1100) and its cost per second.
$(B)/tests/procwatch: $(B)/tests/tools/procwatch.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^

# A person's keyboard, mouse or pad on uinput, through the input helper's
# uinput driver, for the interference watcher's live test (t1120).
$(B)/tests/uinputdev: $(B)/tests/tools/uinputdev.o $(B)/harness/input-uinput.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(shell $(PKG_CONFIG) --libs libevdev)
$(B)/tests/tools/uinputdev.o: CPPFLAGS += -Iharness

$(B)/tests/mhsummary: $(B)/tests/tools/mhsummary.o $(HITCH_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/tests/%.o: tests/%.c
	@mkdir -p $(@D)
	$(CC) $(LAYER_INC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

deps:
	@sh scripts/deps.sh ensure

# The formats on a big-endian machine (docs/formats.md, "Byte order"): the
# cross compiler, qemu-user and ARCH's sysroot (deps.sh), the native build
# that reads, then tests/cli/t1700-cross-s390x.sh, which makes the cross
# build, runs its format unit tests and writers under qemu-s390x and reads
# what they wrote here. Only s390x is proved.
check-cross:
	@sh scripts/deps.sh ensure
	@$(MAKE) --no-print-directory ARCH= B=build all tests
	@sh tests/run.sh t1700-cross-s390x

# The builds before the tests use every CPU (BUILD_JOBS); then the tests
# run side by side, TEST_JOBS at once (tests/run.sh: 3 a CPU unless set),
# each in a PID namespace of its own (tests/README.md, "Running side by
# side"). check-quick is the inner loop: no real game, none of the scripts
# that say "# quick: no" (the builds of the whole tree, the live recorders'
# induced stalls, the push and batches over ssh).
BUILD_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TEST_JOBS  ?=
check: deps
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) all tests
	@sh tests/run.sh $(if $(TEST_JOBS),-j $(TEST_JOBS))

# The tests that depend on timing or load ("# timing:" in their header),
# FLAKY_RUNS times each (20) beside a busy loop on every CPU: a table of
# test, runs, failures (tests/flaky.sh; minutes to an hour)
FLAKY_RUNS ?= 20
check-flaky: deps
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) all tests
	@sh tests/flaky.sh -n $(FLAKY_RUNS)

check-quick: deps
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) all tests
	@sh tests/run.sh --quick $(if $(TEST_JOBS),-j $(TEST_JOBS))

tests: $(TEST_PROGS)

# The same tests with hitchbench and the unit tests built with AddressSanitizer
# and UBSan (leaks included). What is preloaded into games (the hook, with
# its layer's manifest) and the fake games stay plain builds: a sanitizer
# runtime cannot be preloaded (and vkchain stands in for the allocator).
# The unit tests' time limits are four times Check's there: a sanitized
# test beside the suite's others runs several times slower.
SAN_B      := $(B)/sanitize
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -Wno-format-truncation
check-sanitize: deps
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) all tests
	@$(MAKE) --no-print-directory -j$(BUILD_JOBS) B=$(SAN_B) CFLAGS="$(SAN_CFLAGS)" LDFLAGS="-fsanitize=address,undefined" \
		$(SAN_B)/hitchbench $(SAN_B)/hitchbench-wadlump $(SAN_B)/hitchbench-sampler \
		$(SAN_B)/hitchbench-stallrec $(SAN_B)/hitchbench-profrec $(SAN_B)/hitchbench-input $(SAN_B)/hitchbench-intfwatch \
		$(SAN_B)/hitchbench-waker $(SAN_B)/hitchbench-prefetch $(SAN_B)/hitchbench-reboot \
		$(SAN_B)/tests/unit-tests $(SAN_B)/tests/mkframes $(SAN_B)/tests/glxparse $(SAN_B)/tests/mhsummary \
		$(SAN_B)/tests/mkstallrun $(SAN_B)/tests/recdump $(SAN_B)/tests/procwatch \
		$(SAN_B)/tests/uinputdev $(SAN_B)/tests/fifohog $(SAN_B)/tests/mkstallrec
	@cp $(B)/hitchbench-hook.so $(SAN_B)/
	@mkdir -p $(dir $(SAN_B)/$(VK_MANIFEST)) && cp $(B)/$(VK_MANIFEST) $(SAN_B)/$(VK_MANIFEST)
	@cp $(B)/tests/fakegame $(B)/tests/glgame $(B)/tests/libhbstub.so $(B)/tests/present $(B)/tests/vkchain \
		$(B)/tests/tstamp $(B)/tests/waitline $(SAN_B)/tests/
	@HB_BUILD=$(CURDIR)/$(SAN_B) HB_SANITIZE=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		CK_TIMEOUT_MULTIPLIER=4 sh tests/run.sh

# libFuzzer targets: the library again, built by clang into its own object
# directory with the fuzzer's coverage hooks and ASan/UBSan (every undefined
# behaviour a finding), and one binary per tests/fuzz/fuzz-NAME.c (each defines
# only LLVMFuzzerTestOneInput; tests/fuzz/fuzz.h is included into each).
# tests/fuzz/run.sh runs them on copies of their seeds, never in the tree.
FUZZ_S      ?= 10
FUZZ_JOBS   ?= 1
FUZZ_B      := $(B)/fuzz
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)
FUZZ_SRC    := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BINS    = $(FUZZ_SRC:tests/fuzz/%.c=$(B)/%)
fuzz:
	@sh scripts/deps.sh ensure fuzz
	@$(MAKE) --no-print-directory fuzz-targets
	@FUZZ_JOBS=$(FUZZ_JOBS) sh tests/fuzz/run.sh $(FUZZ_B) $(FUZZ_S) $(FUZZ_SRC:tests/fuzz/fuzz-%.c=%)

fuzz-targets:
	@$(MAKE) --no-print-directory B=$(FUZZ_B) CC=clang CFLAGS="$(FUZZ_CFLAGS)" fuzz-bins

fuzz-bins: $(FUZZ_BINS)
# the targets' objects are kept (not intermediate files make removes)
.SECONDARY: $(FUZZ_SRC:tests/fuzz/%.c=$(B)/tests/fuzz/%.o)

$(B)/tests/fuzz/%.o: CPPFLAGS += -include tests/fuzz/fuzz.h
$(B)/fuzz-%: $(B)/tests/fuzz/fuzz-%.o $(HITCH_A) $(GEN_OBJ)
	$(CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(LIBS) $(INPUT_LIBS) $(DW_LIBS)

DEMO_RECIPE ?= dsda-doom
demo: deps
	@$(MAKE) --no-print-directory all
	$(B)/hitchbench run $(DEMO_RECIPE)

bench-self:
	@sh scripts/deps.sh ensure bench
	@$(MAKE) --no-print-directory all tests
	@sh tests/bench-self/bench-self.sh

# Quieted runs against plain ones, interleaved: the coefficient of variation
# of steady fps on each side (several minutes; changes and restores settings).
bench-quiet: deps
	@$(MAKE) --no-print-directory all
	@sh tests/bench-self/quiet-cv.sh

# The lab's results database under load: imports a second with 1-8
# concurrent writers (PostgreSQL and SQLite), a matrix over 100,000 runs
# (root: it starts its own PostgreSQL; a minute or two).
bench-lab: deps
	@$(MAKE) --no-print-directory all
	@HB_BUILD=$(CURDIR)/$(B) sh tests/bench-self/lab-db.sh

# The game prefetch's effect on OpenArena's load time from a cold cache
# (drops the machine's page cache before every run; root; minutes).
bench-prefetch:
	@$(MAKE) --no-print-directory all
	@HB=$(B)/hitchbench sh tests/bench-self/prefetch-load.sh

# Every game x variant x switch token x round of recipes/matrix.ini (hours;
# QUICK=1: one round of short windows), then hitchbench matrix.
bench-matrix: deps
	@$(MAKE) --no-print-directory all
	@HB=$(B)/hitchbench QUICK=$(QUICK) sh scripts/bench-matrix.sh

# install and uninstall work from one list of what goes where; uninstall
# removes those files and then the directories of hitchbench's own that are
# left empty, nothing else. The man pages and completions are prerequisites
# by second expansion, so their variables may be set further down.
HELPER_PROGS := $(HELPERS:%=hitchbench-%)
DATA_FILES    = $(sort $(shell find recipes gamedb -type f))
install: all $$(MAN_PAGES)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/share/vulkan/implicit_layer.d
	install -m 755 $(B)/hitchbench $(DESTDIR)$(BINDIR)/hitchbench
	install -m 755 $(HELPER_PROGS:%=$(B)/%) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(B)/hitchbench-hook.so $(DESTDIR)$(LIBDIR)/hitchbench-hook.so
	sed 's|@LIBRARY_PATH@|$(LIBDIR)/hitchbench-hook.so|' $(VK_MANIFEST_IN) >$(DESTDIR)$(PREFIX)/$(VK_MANIFEST)
	@for f in $(DATA_FILES); do install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done
	@echo "installed $(words $(DATA_FILES)) files of recipes/ and gamedb/ in $(DESTDIR)$(DATADIR)"
	@for p in $(MAN_PAGES); do \
		d="$(DESTDIR)$(MANDIR)/man$${p##*.}"; echo "install -D -m 644 $$p $$d/$${p##*/}"; \
		install -D -m 644 "$$p" "$$d/$${p##*/}" || exit 1; done
	$(if $(COMPLETION_BASH),install -D -m 644 $(COMPLETION_BASH) $(DESTDIR)$(BASHCOMPDIR)/hitchbench)
	$(if $(COMPLETION_ZSH),install -D -m 644 $(COMPLETION_ZSH) $(DESTDIR)$(ZSHCOMPDIR)/_hitchbench)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hitchbench $(HELPER_PROGS:%=$(DESTDIR)$(LIBDIR)/%) \
		$(DESTDIR)$(LIBDIR)/hitchbench-hook.so $(DESTDIR)$(PREFIX)/$(VK_MANIFEST)
	@for f in $(DATA_FILES); do rm -f "$(DESTDIR)$(DATADIR)/$$f"; done
	@for p in $(MAN_PAGES); do rm -f "$(DESTDIR)$(MANDIR)/man$${p##*.}/$${p##*/}"; done
	$(if $(COMPLETION_BASH),rm -f $(DESTDIR)$(BASHCOMPDIR)/hitchbench)
	$(if $(COMPLETION_ZSH),rm -f $(DESTDIR)$(ZSHCOMPDIR)/_hitchbench)
	@[ ! -d "$(DESTDIR)$(DATADIR)" ] || find "$(DESTDIR)$(DATADIR)" -depth -type d -empty -delete
	@for d in $(LIBDIR) $(PREFIX)/share/vulkan/implicit_layer.d $(PREFIX)/share/vulkan; do \
		[ ! -d "$(DESTDIR)$$d" ] || rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done

# A source tarball for a machine without git: git archive of HEAD with a
# VERSION file holding HEAD's version (scripts/version.sh reads it there).
DIST = $(B)/hitchbench-$(shell sh scripts/version.sh --head '$(CURDIR)')
dist:
	@mkdir -p $(DIST)
	git archive --format=tar --prefix=$(notdir $(DIST))/ -o $(DIST).tar HEAD
	sh scripts/version.sh --head '$(CURDIR)' >$(DIST)/VERSION
	tar -rf $(DIST).tar -C $(B) --owner=0 --group=0 $(notdir $(DIST))/VERSION
	rm -rf $(DIST) && gzip -9nf $(DIST).tar
	@echo "$(DIST).tar.gz"

# The Debian package built, lintian, then installed with its dependencies
# in a clean Debian 12 root where it runs the default recipe (root,
# mmdebstrap; minutes, so not part of check: tests/package/check-package.sh)
check-package:
	@sh scripts/deps.sh ensure package
	@sh tests/package/check-package.sh

clean:
	rm -rf $(B)

.PHONY: all deps check check-quick check-flaky check-cross check-sanitize check-package fuzz fuzz-targets fuzz-bins tests demo bench-self bench-quiet bench-prefetch bench-lab bench-matrix install uninstall dist clean FORCE

-include $(LIB_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(B)/bench/main.d $(wildcard $(B)/harness/*.d) $(wildcard $(B)/hook/*.d) \
	$(wildcard $(B)/tests/tools/*.d) $(wildcard $(B)/tests/fuzz/*.d)
