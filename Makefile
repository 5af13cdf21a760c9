# autotune: one non-recursive Makefile.
#   make            build/autotune and build/libautotune.so (Open MPI) and, where
#                   smpicc exists, build/autotune-smpi and build/libautotune-smpi.a
#   make check      all tests; ends with "N passed, N failed, N skipped"
#   make demo       install what is missing, build, run the small default sweep
#   make SANITIZE=address,undefined   sanitizer build
#   make fuzz       each parser under libFuzzer for FUZZ_SECONDS (clang)

CC       := mpicc
CORE_CC  := cc
SMPICC   := $(shell command -v smpicc 2>/dev/null)
PREFIX   ?= /usr/local
AUTOTUNE_VERSION := $(shell sed -n 's/^\#define AUTOTUNE_VERSION "\(.*\)"/\1/p' autotune/main.c)
PKGS     := gsl libconfig
WARN     := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
            -Wmissing-prototypes -Wformat=2 -Wundef -Wwrite-strings -Wvla
CFLAGS   ?= -O2 -g
CFLAGS   += $(WARN) -D_POSIX_C_SOURCE=200809L $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
            -I. $(if $(WERROR),-Werror)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
ifdef SANITIZE
CFLAGS   += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=$(SANITIZE)
endif
# Objects compiled with and without SANITIZE do not link together: every
# object depends on build/.sanitize, rewritten when SANITIZE changes, so
# `make SANITIZE=...` then `make` rebuilds them instead of failing to link.
SAN_STAMP := build/.sanitize
$(shell mkdir -p build && { [ -f $(SAN_STAMP) ] && [ "$$(cat $(SAN_STAMP))" = "$(SANITIZE)" ] || echo "$(SANITIZE)" > $(SAN_STAMP); })
$(SAN_STAMP):
	@mkdir -p $(@D) && echo "$(SANITIZE)" > $@

MODULES  := autotune tune search collectives store decision model
# The modules that never call MPI, compiled with plain cc into
# build/libautotune-core.a: an #include <mpi.h> there breaks the build.
CORE_MODULES := search store decision model
comma    := ,
# report/ (pictures of a run, no MPI) is in both.
MODULES      += report
CORE_MODULES += report
SRCS     := $(foreach m,$(MODULES),$(wildcard $(m)/*.c))
CORE_SRCS:= $(foreach m,$(CORE_MODULES),$(wildcard $(m)/*.c))
MPI_SRCS := $(filter-out $(CORE_SRCS),$(SRCS))
MAIN_SRC := autotune/main.c
LIB_SRCS := $(filter-out $(MAIN_SRC),$(MPI_SRCS))
OBJS     := $(MPI_SRCS:%.c=build/obj/%.o)
CORE_OBJS:= $(CORE_SRCS:%.c=build/core/%.o)
LIB_OBJS := $(LIB_SRCS:%.c=build/obj/%.o)
SMPI_OBJS:= $(SRCS:%.c=build/smpi/%.o)

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/unit/%)
# Unit tests of MPI-side code (a header of autotune/ or collectives/, which
# include mpi.h, or mpi.h itself), found by their #include lines: built with
# mpicc, still run without mpirun. The others link only the core library,
# with plain cc.
MPI_MODULES := $(filter-out $(CORE_MODULES),$(MODULES))
UNIT_MPI  := $(patsubst tests/unit/%.c,build/tests/unit/%,$(shell grep -l \
               $(foreach m,$(MPI_MODULES),-e '^\#include "$(m)/') \
               -e '^\#include <mpi.h>' $(UNIT_SRCS) /dev/null))
UNIT_CORE := $(filter-out $(UNIT_MPI),$(UNIT_BINS))
MPIT_SRCS := $(wildcard tests/mpi/*.c)
MPIT_BINS := $(MPIT_SRCS:tests/mpi/%.c=build/tests/mpi/%)
SMPIT_BINS:= $(if $(SMPICC),$(MPIT_SRCS:tests/mpi/%.c=build/tests/smpi/%))

# libautotune (runtime/): the PMPI library that runs a decision's
# algorithms inside applications. Its objects are compiled apart, -fPIC and
# with hidden symbols, so that only the MPI_ functions it defines are
# visible to the application; no GSL or libconfig.
RT_SRCS  := $(wildcard runtime/*.c) \
            $(filter-out collectives/native.c,$(wildcard collectives/*.c)) \
            decision/decision.c decision/flat.c decision/dec_file.c \
            store/tables.c store/rundir.c store/profile.c
RT_CFLAGS = $(CFLAGS) -fPIC -fvisibility=hidden
RT_OBJS  := $(RT_SRCS:%.c=build/rt/%.o)
RT_SMPI_OBJS := $(RT_SRCS:%.c=build/rt-smpi/%.o)
RT_LIBS  := build/libautotune.so $(if $(SMPICC),build/libautotune-smpi.a)

all: build/autotune $(if $(SMPICC),build/autotune-smpi) $(RT_LIBS)

build/rt/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(RT_CFLAGS) -MMD -MP -c -o $@ $<

build/libautotune.so: $(RT_OBJS)
	$(CC) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ -lm -ldl

build/rt-smpi/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(SMPICC) $(RT_CFLAGS) -MMD -MP -c -o $@ $<

# Under SMPI the application is a shared object that smpirun loads, whose
# MPI_ references smpi.h makes weak: a linker does not search an archive
# for those. So the runtime is one relocatable object (its other symbols
# made local: they cannot clash with the application's), and
# libautotune-smpi.a is a GNU ld script naming it: `smpicc app.c -o app
# build/libautotune-smpi.a -lm` links all of it.
build/rt-smpi/libautotune-smpi.o: $(RT_SMPI_OBJS)
	ld -r -o $@ $^
	objcopy --localize-hidden $@

build/libautotune-smpi.a: build/rt-smpi/libautotune-smpi.o
	printf '/* GNU ld script: libautotune for SimGrid SMPI (see Makefile) */\nINPUT(%s)\n' \
	    "$(abspath $<)" >$@

build/autotune: $(OBJS) build/libautotune-core.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/libautotune-core.a: $(CORE_OBJS) build/model-sim.o
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

# The model's schedule recorder (model/sim/record.c): collectives/ compiled
# once more, with cc against collectives/record/mpi.h (a recording
# point-to-point layer, no network), into one object whose symbols but
# model_record are local, so it links beside the real collectives and MPI.
MODEL_SIM_SRCS := model/sim/record.c collectives/record/mpi.c \
                  $(filter-out collectives/native.c collectives/nodes.c collectives/node.c collectives/clock.c,$(wildcard collectives/*.c))
MODEL_SIM_OBJS := $(MODEL_SIM_SRCS:%.c=build/model-sim/%.o)
build/model-sim/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(CORE_CC) -Icollectives/record $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

build/model-sim.o: $(MODEL_SIM_OBJS)
	ld -r -o $@ $^
	objcopy --localize-hidden $@

# Everything but main (the model's recorder included), for the MPI tests
# and the benchmarks.
build/libautotune-tool.a: $(LIB_OBJS) $(CORE_OBJS) build/model-sim.o
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

build/core/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(CORE_CC) $(CFLAGS) -MMD -MP -c -o $@ $<

build/obj/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# The same source compiled against SimGrid's simulated MPI. smpicc links a
# shared object that smpirun loads; with the system's program interpreter and
# an entry point (autotune/main.c) it also runs by itself, for the commands
# that need no MPI and a hint on how to start the sweep.
# Not under the sanitizers: their runtimes need the C library's start-up,
# which a shared object started by itself does not get.
SMPI_INTERP := $(if $(and $(SMPICC),$(if $(SANITIZE),,yes)),$(shell \
                 readelf -l /bin/sh 2>/dev/null | \
                 sed -n 's/.*program interpreter: \(.*\)]/\1/p'))
build/smpi/autotune/main.o: CFLAGS += \
    $(if $(SMPI_INTERP),-DAUTOTUNE_SMPI_INTERP='"$(SMPI_INTERP)"')
# smpirun copies the program once per rank (each rank's own globals): without
# its debug sections (symbols stay) a copy is a quarter of the size, 1.4 GB
# less to write at 1,024 ranks.
build/autotune-smpi: $(SMPI_OBJS) build/model-sim.o
	$(SMPICC) $(LDFLAGS) -Wl,--strip-debug \
	    $(if $(SMPI_INTERP),-Wl$(comma)-e$(comma)autotune_smpi_entry) \
	    -o $@ $^ $(LDLIBS)

build/smpi/%.o: %.c $(SAN_STAMP)
	@mkdir -p $(@D)
	$(SMPICC) $(CFLAGS) -MMD -MP -c -o $@ $<

# test_alloc fails the library's allocations one by one.
build/tests/unit/test_alloc: LDLIBS += -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc

$(UNIT_CORE): build/tests/unit/%: tests/unit/%.c build/libautotune-core.a
	@mkdir -p $(@D)
	$(CORE_CC) $(CFLAGS) -MMD -MP -o $@ $< build/libautotune-core.a $(LDLIBS)

$(UNIT_MPI): build/tests/unit/%: tests/unit/%.c build/libautotune-tool.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< build/libautotune-tool.a $(LDLIBS)

build/tests/mpi/%: tests/mpi/%.c build/libautotune-tool.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -o $@ $< build/libautotune-tool.a $(LDLIBS)

build/smpi/libautotune-tool.a: $(filter-out build/smpi/autotune/main.o,$(SMPI_OBJS)) \
                               build/model-sim.o
	rm -f $@ && ar rcs $@ $^

build/tests/smpi/%: tests/mpi/%.c build/smpi/libautotune-tool.a
	@mkdir -p $(@D)
	$(SMPICC) $(CFLAGS) -o $@ $< build/smpi/libautotune-tool.a $(LDLIBS)

# The parsers' fuzz harnesses (tests/fuzz/), replayed without libFuzzer
# over the committed corpora: gcc with ASan and UBSan on the parsers, the
# rest of the library from build/libautotune-tool.a.
FUZZ_PARSERS := config journal c45
REPLAY_SAN   := -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
REPLAY_BINS  := $(FUZZ_PARSERS:%=build/tests/fuzz/replay_%)
FUZZ_OBJS_config  := tune/config.o
FUZZ_OBJS_journal := store/journal.o
FUZZ_OBJS_c45     := decision/c45_io.o decision/c45.o decision/c45_print.o
FUZZ_MAIN    := tests/fuzz/fuzz_file.c

build/replay/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(REPLAY_SAN) -MMD -MP -c -o $@ $<

.SECONDEXPANSION:
build/tests/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(FUZZ_MAIN) \
        $$(addprefix build/replay/,$$(FUZZ_OBJS_$$*)) build/libautotune-tool.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(REPLAY_SAN) $(LDFLAGS) -MMD -MP -o $@ $(filter %.c,$^) \
	    $(filter %.o,$^) build/libautotune-tool.a $(LDLIBS)

# The programs of libautotune's tests: an application linked with the
# library as a user would (`-Lbuild -lautotune`; under SMPI the whole link
# line of the README), and the collective test as an application of it.
RT_TEST_BINS := build/tests/rt/runtime_app build/tests/rt/runtime_bottom \
                build/tests/rt/cg \
                $(if $(SMPICC),build/tests/rt-smpi/runtime_app \
                               build/tests/rt-smpi/test_collectives \
                               build/tests/rt-smpi/cg \
                               build/tests/rt-smpi/arrival \
                               build/tests/rt-smpi/imb \
                               build/tests/smpi-plain/imb)

build/tests/rt/runtime_app: tests/mpi/runtime_app.c build/libautotune.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -Lbuild -lautotune -Wl,-rpath,$(abspath build)

build/tests/rt/runtime_bottom: tests/mpi/runtime_bottom.c build/libautotune.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -Lbuild -lautotune -Wl,-rpath,$(abspath build)

build/tests/rt-smpi/runtime_app: tests/mpi/runtime_app.c build/libautotune-smpi.a
	@mkdir -p $(@D)
	$(SMPICC) $(CFLAGS) -o $@ $< build/libautotune-smpi.a -lm

# The mini-apps of tests/apps/, linked with libautotune as a user would.
build/tests/rt/%: tests/apps/%.c build/libautotune.so
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ $< -Lbuild -lautotune -Wl,-rpath,$(abspath build)

build/tests/rt-smpi/%: tests/apps/%.c build/libautotune-smpi.a
	@mkdir -p $(@D)
	$(SMPICC) $(CFLAGS) -o $@ $< build/libautotune-smpi.a -lm

# The same mini-apps without libautotune, for bench-runtime's baseline.
build/tests/smpi-plain/%: tests/apps/%.c
	@mkdir -p $(@D)
	$(SMPICC) $(CFLAGS) -o $@ $< -lm

build/tests/rt-smpi/test_collectives: tests/mpi/test_collectives.c \
        build/libautotune-smpi.a build/smpi/libautotune-tool.a
	@mkdir -p $(@D)
	$(SMPICC) $(CFLAGS) -o $@ $< build/libautotune-smpi.a \
	    build/smpi/libautotune-tool.a $(LDLIBS)

# The collective test from Fortran (tests/mpi/*.F90), where mpif90 exists:
# once per binding, mpif.h (gfortran 10 and later refuse its untyped
# buffers without -fallow-argument-mismatch), the mpi module and mpi_f08;
# and the mpi module's linked with libautotune rather than preloaded. Each
# build writes its Fortran modules (-J) in its own directory.
MPIFC     := $(shell command -v mpif90 2>/dev/null)
FFLAGS    ?= -O2 -g
FORT_SRCS := $(wildcard tests/mpi/*.F90)
FORT_BINS := $(if $(MPIFC),$(foreach b,mpif mpi f08 linked,\
                 $(FORT_SRCS:tests/mpi/%.F90=build/tests/fortran/$(b)/%)))
FORT_mpif   := -fallow-argument-mismatch
FORT_mpi    := -DUSE_MPI
FORT_f08    := -DUSE_F08
FORT_linked := -DUSE_MPI -Lbuild -lautotune -Wl,-rpath,$(abspath build)

build/tests/fortran/%: tests/mpi/$$(notdir $$*).F90 \
        $$(if $$(filter linked/%,$$*),build/libautotune.so)
	@mkdir -p $(@D)
	$(MPIFC) $(FFLAGS) -cpp -J$(@D) -o $@ $< $(FORT_$(patsubst %/,%,$(dir $*)))

# The same under SMPI (smpif90: mpif.h and the mpi module; SimGrid has no
# mpi_f08), linked with libautotune-smpi.a.
SMPIFC    := $(if $(SMPICC),$(shell command -v smpif90 2>/dev/null))
FORT_SMPI_BINS := $(if $(SMPIFC),$(foreach b,mpif mpi,\
                      $(FORT_SRCS:tests/mpi/%.F90=build/tests/fortran-smpi/$(b)/%)))

build/tests/fortran-smpi/%: tests/mpi/$$(notdir $$*).F90 build/libautotune-smpi.a
	@mkdir -p $(@D)
	$(SMPIFC) $(FFLAGS) -cpp -J$(@D) -o $@ $< $(FORT_$(patsubst %/,%,$(dir $*))) \
	    build/libautotune-smpi.a -lm

tests: all build/libautotune-core.a $(UNIT_BINS) $(MPIT_BINS) $(SMPIT_BINS) $(REPLAY_BINS) \
       $(RT_TEST_BINS) $(FORT_BINS) $(FORT_SMPI_BINS)
unit-tests: $(UNIT_BINS)
fuzz-replays: $(REPLAY_BINS)

check: tests
	@tests/run.sh

bench: all
	@tests/bench/run.sh

# The model's accuracy on the wide grids of both simulated clusters, its
# parameters measured under smpirun (results/bench/model-*.txt), and
# search = "model" replayed there and on the 12 generated platforms
# (results/bench/model-search.txt).
bench-model: all
	@tests/bench/model.sh

# The model at many ranks per node (issue 34.6): calibrated with and without
# two ranks on a simulated node, predicting the bench-ppn sweeps at their
# real ranks per node (results/bench/model-ppn.txt; a minute).
bench-model-ppn: all
	@tests/bench/model_ppn.sh

# The model on node-aware methods (issue 35 item 2): its accuracy on
# exhaustive sweeps with node-aware methods at 8 ranks per node on ndr and
# ddr, and search = "model" replayed there (results/bench/model-node.txt;
# minutes, BENCH_SWEEP=no reuses the sweeps).
bench-model-node: all
	@tests/bench/model_node.sh

# search = "model" live on 128..256 ranks of a 256-node Grig, and on 256
# to 1,024 ranks of the shipped fat tree, against exhaustive search where
# it is affordable (results/bench/model-grig256-sweep.txt, half an hour;
# results/bench/model-fattree-sweep.txt).
bench-model-256: all
	@tests/bench/model_sweep.sh grig256

bench-model-fattree: all
	@tests/bench/model_sweep.sh fattree

# The pure model on the generated fat trees before and after the replay
# shared the switches' uplinks (issue 36.3; results/bench/model-uplink.txt).
bench-model-uplink: all
	@tests/bench/model_uplink.sh

# The pure model on every generated fat tree, its committed calibration
# (issue 36.3; results/bench/model-fattrees.txt).
bench-model-fattrees: all
	@tests/bench/model_fattrees.sh

# The tuned choice against the library default on the simulated clusters.
bench-default: all
	@tests/bench/default.sh

# The search strategies on a generated family of simulated clusters
# (conf/platforms/robust/): per platform and in total (results/bench/robust.csv).
bench-robust: all
	@tests/bench/robust.sh

# The adaptive grid replayed on the committed full-grid and robust journals
# (results/bench/adaptive.csv, adaptive-robust.csv); no new sweep.
bench-adaptive: all
	@tests/bench/adaptive.sh

# What any adaptive walk must measure to keep every point within 10 %
# (issue 36): bounds from the dense journals and the calibrations
# (results/bench/adaptive-bound.txt); no new sweep.
bench-adaptive-bound: all
	@tests/bench/adaptive_bound.sh

# The model's calibration on the generated fat trees: its cost against
# the exhaustive sweep's, before and after, and the model's accuracy
# (results/bench/calibration-cost.txt).
bench-calibration-cost: all
	@tests/bench/calibration_cost.sh

# The walk that starts from the model (issue 36): replayed on the dense
# journals with each calibration (results/bench/adaptive-model-start.txt).
bench-adaptive-start: all
	@tests/bench/adaptive_start.sh

# Large simulated clusters (conf/platforms/fattree.xml, 64..1,024 ranks):
# wall time, CPU time and peak memory (results/bench/scale.txt).
bench-scale: all
	@tests/bench/scale.sh

# Ranks per node (issue 34): the one-rank-per-node optimum applied at 8 and
# 32 ranks per node on conf/platforms/ndr.xml, ddr.xml and grig.xml
# (results/bench/ppn.{csv,txt}; about 35 minutes on 2 cores).
bench-ppn: all
	@tests/bench/ppn.sh

# Ranks per node tuned (issue 34): one sweep over 1, 8 and 32 ranks per
# node on ndr.xml (1 and 8 on ddr.xml), its decisions held out every other
# size, the tuned choice against the library default and against SMPI's
# node-aware algorithms (results/bench/ppn-tuned.{csv,txt}).
bench-ppn-tuned: all
	@tests/bench/ppn_tuned.sh

# Node-aware methods (issue 35): swept beside the flat algorithms on ndr.xml
# and ddr.xml, 4 nodes of 8 and of 32 ranks, against the best flat method,
# the library default and SMPI's SMP-aware algorithms forced; decisions held
# out every other size (results/bench/node.{txt,csv}, node-refs.csv).
bench-node: all
	@tests/bench/node.sh

# bench-runtime at 16 nodes x 8 ranks per node on ndr.xml and ddr.xml
# (results/bench/runtime-ppn8.txt).
bench-runtime-ppn: all
	@BENCH_PPN=8 tests/bench/runtime.sh 128 ndr ddr

# bench-runtime-ppn with node-aware methods among the candidates: its
# journals resumed, the app with the flat-only and the node-aware decision
# (results/bench/runtime-node.txt; BENCH_SWEEP=no times nothing new).
bench-runtime-node: all
	@BENCH_NODE=1 BENCH_PPN=8 tests/bench/runtime.sh 128 ndr ddr

# Decision functions: penalties of trees and quadtrees on the Grig runs and
# the time of a decision (results/bench/decision-*).
bench-decision: all build/libautotune-tool.a
	@tests/bench/decision.sh

# The sample HTML reports of committed runs and the README's picture of a
# decision map (results/report/; needs xmllint and chromium).
.PHONY: report-sample
report-sample: build/autotune
	@tests/bench/report_sample.sh
# Held-out penalties of C4.5 trees, quadtrees and the exact table between
# measured sizes, before and after the crossing cuts, on every committed
# run with tables (results/bench/between.{csv,txt}); bench-between-tune:
# the options the defaults were chosen from (results/bench/between-tune.csv).
bench-between: all
	@tests/bench/between.sh
bench-between-tune: all
	@tests/bench/between.sh tune
# The decisions between measured sizes with and without the corrected
# model (issue 36): results/bench/corrected.{csv,txt}; the unseen family's
# sweeps and calibrations: tests/bench/corrected-sweep.sh.
bench-corrected: all
	@tests/bench/corrected.sh

# libautotune's per-call overhead on MPI_COMM_SELF against PMPI_Bcast, with
# a decision that says default (lookup, then the library), one that runs
# an algorithm (lookup and dispatch), and the first with AUTOTUNE_PROFILE
# (the profile's lookup and two clock reads more):
# results/bench/runtime-overhead.txt.
bench-runtime-overhead: build/libautotune.so build/tests/mpi/runtime_overhead
	@mkdir -p results/bench build/bench
	@printf 'autotune-decision 1\nkind flat\nmethods 1\n%s\ncollectives 1\nbcast 0\nnodes 1\nleaf 0\n' \
	    default/0 >build/bench/default.dec
	@sed 's#^default/0#binomial/0#' build/bench/default.dec >build/bench/binomial.dec
	@{ echo "# make bench-runtime-overhead ($$(date -u +%F), $$(nproc) cores, median of 201 batches of 20000 calls)"; \
	  for d in default binomial; do \
	    echo "# LD_PRELOAD=build/libautotune.so AUTOTUNE_DECISION=build/bench/$$d.dec build/tests/mpi/runtime_overhead"; \
	    echo "$$d: $$(LD_PRELOAD=$(abspath build/libautotune.so) AUTOTUNE_DECISION=build/bench/$$d.dec \
	        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 build/tests/mpi/runtime_overhead)"; \
	  done; \
	  echo "# LD_PRELOAD=build/libautotune.so AUTOTUNE_DECISION=build/bench/default.dec AUTOTUNE_PROFILE=build/bench/overhead.prof build/tests/mpi/runtime_overhead"; \
	  echo "default, profiled: $$(LD_PRELOAD=$(abspath build/libautotune.so) AUTOTUNE_DECISION=build/bench/default.dec \
	      AUTOTUNE_PROFILE=build/bench/overhead.prof \
	      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 build/tests/mpi/runtime_overhead)"; \
	  } | tee results/bench/runtime-overhead.txt

# The profile workflow on the simulated clusters: the CG mini-app profiled,
# tuned from its profile, run without and with libautotune; measured and
# predicted speedups (results/bench/runtime.txt).
bench-runtime: all
	@tests/bench/runtime.sh

# Issue 38's proof: the tuner's speedups under measure.arrival = "barrier"
# and "together" against those an IMB-style benchmark (tests/apps/imb.c)
# measures with libautotune, on both simulated clusters at 8 and 16 ranks
# (results/bench/truth.txt; minutes, or seconds replaying its journals).
bench-truth: all
	@nice -n 19 tests/bench/truth.sh

# Fuzzes each parser for FUZZ_SECONDS (libFuzzer, clang, ASan and UBSan),
# one after the other, minimises tests/fuzz/corpus/<parser>/ and writes the
# figures to results/bench/fuzz.txt (tests/fuzz/run.sh). The oracles of
# bugs reported open (tests/fuzz/crashes/*/open/) are skipped unless
# FUZZ_SKIP_OPEN=0.
FUZZ_SECONDS ?= 600
FUZZ_CC      ?= clang
FUZZ_CFLAGS  := -O1 -g $(WARN) -D_POSIX_C_SOURCE=200809L -I. \
                $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
                $(shell $(CC) -showme:compile 2>/dev/null) \
                -fsanitize=address,undefined -fno-sanitize-recover=undefined \
                -fno-omit-frame-pointer
MPI_LIBS     := $(shell $(CC) -showme:link 2>/dev/null)
FUZZ_BINS    := $(FUZZ_PARSERS:%=build/fuzz/fuzz_%)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

build/fuzz/libautotune-tool.a: $(patsubst %.c,build/fuzz/obj/%.o,$(LIB_SRCS) $(CORE_SRCS))
	rm -f $@ && ar rcs $@ $^

# Only the config's harness links the MPI library (the tables config_load
# looks names up in reference the collectives); it never calls MPI_Init.
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_MAIN) build/fuzz/libautotune-tool.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $(filter %.c,$^) \
	    build/fuzz/libautotune-tool.a $(LDLIBS) $(if $(filter config,$*),$(MPI_LIBS))

fuzz:
	./setup.sh fuzz
	$(MAKE) $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_PARSERS)

# Rewrites tests/decision/golden/ from the current build, for review.
golden-decision: build/autotune
	@tests/sh/test_decision_golden.sh --update

# The README's first command: install what is missing, build, tune this
# machine on a small default grid.
demo:
	./setup.sh
	$(MAKE) all
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	    mpirun -np 4 --oversubscribe build/autotune -c conf/tune.cfg

# libautotune has no header: it only defines MPI functions. Its pkg-config
# files: autotune.pc (-lautotune) and, with SMPI, autotune-smpi.pc, whose
# linker script names the installed object.
LIBDIR ?= $(PREFIX)/lib
install: build/autotune $(RT_LIBS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 755 build/autotune $(DESTDIR)$(PREFIX)/bin/autotune
	install -m 755 build/libautotune.so $(DESTDIR)$(LIBDIR)/libautotune.so
	printf 'libdir=%s\n\nName: autotune\nDescription: MPI collectives as autotune tuned them (PMPI library)\nVersion: %s\nLibs: -L$${libdir} -lautotune\n' \
	    "$(LIBDIR)" "$(AUTOTUNE_VERSION)" >$(DESTDIR)$(LIBDIR)/pkgconfig/autotune.pc
ifneq ($(SMPICC),)
	install -m 755 build/autotune-smpi $(DESTDIR)$(PREFIX)/bin/autotune-smpi
	install -m 644 build/rt-smpi/libautotune-smpi.o $(DESTDIR)$(LIBDIR)/libautotune-smpi.o
	printf '/* GNU ld script: libautotune for SimGrid SMPI */\nINPUT(%s)\n' \
	    "$(LIBDIR)/libautotune-smpi.o" >$(DESTDIR)$(LIBDIR)/libautotune-smpi.a
	printf 'libdir=%s\n\nName: autotune-smpi\nDescription: libautotune for SimGrid SMPI (link with smpicc)\nVersion: %s\nLibs: $${libdir}/libautotune-smpi.a -lm\n' \
	    "$(LIBDIR)" "$(AUTOTUNE_VERSION)" >$(DESTDIR)$(LIBDIR)/pkgconfig/autotune-smpi.pc
endif

format:
	clang-format -i $(SRCS) $(MODEL_SIM_SRCS) $(wildcard runtime/*.c) $(wildcard */*.h */*/*.h) \
	    $(UNIT_SRCS) $(MPIT_SRCS) \
	    $(wildcard tests/decision/*.c tests/bench/*.c tests/fuzz/*.[ch] tests/apps/*.c)

clean:
	rm -rf build

.PHONY: all tests unit-tests fuzz-replays check bench bench-default bench-robust bench-adaptive bench-adaptive-bound bench-calibration-cost bench-adaptive-start \
        bench-decision bench-between bench-between-tune bench-corrected bench-model bench-runtime bench-truth \
        bench-runtime-overhead bench-scale bench-ppn bench-ppn-tuned bench-node bench-runtime-ppn bench-runtime-node bench-model-ppn bench-model-node bench-model-uplink bench-model-fattrees bench-model-256 bench-model-fattree golden-decision fuzz demo install format clean
.SECONDARY:

-include $(OBJS:.o=.d) $(CORE_OBJS:.o=.d) $(SMPI_OBJS:.o=.d) $(UNIT_BINS:=.d) \
         $(MODEL_SIM_OBJS:.o=.d) \
         $(RT_OBJS:.o=.d) $(RT_SMPI_OBJS:.o=.d) \
         $(MPIT_BINS:=.d) $(REPLAY_BINS:=.d) \
         $(wildcard build/replay/*/*.d build/fuzz/obj/*/*.d)
