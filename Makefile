# mtinject — plain Makefile with feature probes; no generated configure.
#
#   make            build build/libmtinject.so, build/mtinject, build/mtinject-dlfilter.so
#   make deps       apt-get the build dependencies that are missing (Debian)
#   make test       deps + build + every test (unit, integration, examples), plain and
#                   under ASan+UBSan
#   make demo       deps + build + run the demo under the preload and decode it
#   make bench      the benchmarks under tests/bench (ratios against a baseline in the same run)
#   make install    PREFIX=/usr/local DESTDIR=...   /   make uninstall
#   SANITIZE=1      build into build-san/ with AddressSanitizer + UBSan (the preload gets UBSan
#                   only: ASan cannot be preloaded behind a program that was not built with it)

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
PKGLIBDIR  ?= $(LIBDIR)/mtinject
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

CC  ?= cc
CXX ?= c++
PKG_CONFIG ?= pkg-config

ifeq ($(SANITIZE),1)
BUILD      ?= build-san
SAN_TOOL   := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_LIB    := -fsanitize=undefined -fno-sanitize-recover=all
else
BUILD      ?= build
SAN_TOOL   :=
SAN_LIB    :=
endif

# Feature probes (cached per make invocation; `make deps` installs what is missing).
ELF_CFLAGS   := $(shell $(PKG_CONFIG) --cflags libelf 2>/dev/null)
ELF_LIBS     := $(or $(shell $(PKG_CONFIG) --libs libelf 2>/dev/null),-lelf)
UNW_CFLAGS   := $(shell $(PKG_CONFIG) --cflags libunwind 2>/dev/null)
UNW_LIBS     := $(or $(shell $(PKG_CONFIG) --libs libunwind 2>/dev/null),-lunwind)
CMOCKA_LIBS  := $(or $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null),-lcmocka)

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
CPPFLAGS += -D_GNU_SOURCE -DMTINJECT_VERSION='"$(VERSION)"' -DMTINJECT_PKGLIBDIR='"$(PKGLIBDIR)"' \
            -Iinclude -I. $(ELF_CFLAGS) $(UNW_CFLAGS)
CFLAGS   ?= -O2 -g
BASEFLAGS := -std=gnu11 $(WARN) -fPIC -fvisibility=hidden -fno-strict-aliasing -MMD -MP

# --- sources ---------------------------------------------------------------------------------
# control/ is shared by the preload and the tool; decode/dlfilter*.c runs inside `perf script`.
PRELOAD_SRCS  := $(sort $(wildcard preload/*.c))
CONTROL_SRCS  := $(sort $(wildcard control/*.c))
DLFILTER_SRCS := $(sort $(wildcard decode/dlfilter*.c))
DECODE_SRCS   := $(filter-out $(DLFILTER_SRCS),$(sort $(wildcard decode/*.c)))
TOOL_SRCS     := $(sort $(wildcard tools/*.c))

LIB_OBJS   := $(patsubst %.c,$(BUILD)/lib/%.o,$(PRELOAD_SRCS) $(CONTROL_SRCS))
# The in-process runtime (constructor, handlers, interposed sigaction/dlopen, helper thread)
# exists only in the preload; the tool and the unit tests get the reusable modules.
PRELOAD_ONLY := preload/main.c preload/start.c preload/handler.c preload/helper.c preload/arm.c preload/api.c \
                preload/exec.c
TOOL_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(TOOL_SRCS) $(DECODE_SRCS) $(CONTROL_SRCS) \
                $(filter-out $(PRELOAD_ONLY),$(PRELOAD_SRCS)))
DLF_OBJS   := $(patsubst %.c,$(BUILD)/dlf/%.o,$(DLFILTER_SRCS))
# Unit tests link the tool's objects (all but main), so every module is testable in-process.
CORE_OBJS  := $(filter-out $(BUILD)/obj/tools/main.o,$(TOOL_OBJS))

LIB      := $(BUILD)/libmtinject.so
TOOL     := $(BUILD)/mtinject
DLFILTER := $(BUILD)/mtinject-dlfilter.so
CORE_A   := $(BUILD)/libmtj-core.a

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

PROG_C    := $(filter-out tests/programs/lib%.c,$(sort $(wildcard tests/programs/*.c)))
PROG_CXX  := $(sort $(wildcard tests/programs/*.cc))
PROG_LIBS := $(sort $(wildcard tests/programs/lib*.c))
PROG_BINS := $(patsubst tests/programs/%.c,$(BUILD)/tests/programs/%,$(PROG_C)) \
             $(patsubst tests/programs/%.cc,$(BUILD)/tests/programs/%,$(PROG_CXX)) \
             $(patsubst tests/programs/%.c,$(BUILD)/tests/programs/%.so,$(PROG_LIBS))
# Test utilities (trace checkers, readers) link the core like unit tests do.
TTOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TTOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TTOOL_SRCS))
BENCH_SRCS := $(sort $(wildcard tests/bench/*.c))
BENCH_BINS := $(patsubst tests/bench/%.c,$(BUILD)/tests/bench/%,$(BENCH_SRCS))
EXAMPLE_MK := $(wildcard docs/examples/Makefile)

LIBS_COMMON := $(ELF_LIBS) -lpthread -ldl

.PHONY: all deps build check test demo bench clean install uninstall unit integration programs examples
all: $(LIB) $(TOOL) $(DLFILTER)

# --- dependencies ------------------------------------------------------------------------------
DEB_DEPS := libelf-dev libunwind-dev libcmocka-dev pkg-config gcc g++ procps
deps:
	@missing=""; for p in $(DEB_DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all present ($(DEB_DEPS))"; exit 0; fi; \
	if ! command -v apt-get >/dev/null; then echo "deps: missing:$$missing — install them with your package manager" >&2; exit 1; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "deps: missing:$$missing — run: sudo apt-get install$$missing" >&2; exit 1; fi; \
	echo "deps: installing$$missing"; \
	{ apt-get install -y -q --no-install-recommends $$missing >/dev/null 2>&1 || \
	  { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing >/dev/null; }; } \
	  || { echo "deps: apt-get install$$missing failed" >&2; exit 1; }
	@command -v perf >/dev/null || echo "deps: note: perf is not on PATH; install linux-perf (Debian) to record snapshots" >&2

# --- objects -----------------------------------------------------------------------------------
$(BUILD)/lib/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DMTJ_IN_PRELOAD=1 $(BASEFLAGS) $(CFLAGS) $(SAN_LIB) -c $< -o $@
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) $(SAN_TOOL) -c $< -o $@
$(BUILD)/dlf/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(CC) -shared -Wl,--no-undefined -Wl,-z,now -Wl,-soname,libmtinject.so $(SAN_LIB) -o $@ $^ $(UNW_LIBS) $(LIBS_COMMON)
$(DLFILTER): $(DLF_OBJS)
	$(CC) -shared -Wl,--no-undefined -o $@ $^
$(CORE_A): $(CORE_OBJS)
	@rm -f $@
	ar rcs $@ $^
$(TOOL): $(BUILD)/obj/tools/main.o $(CORE_A)
	$(CC) $(SAN_TOOL) -o $@ $^ $(UNW_LIBS) $(LIBS_COMMON)

# --- tests -------------------------------------------------------------------------------------
$(BUILD)/tests/unit/%: tests/unit/%.c $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) $(SAN_TOOL) -Wno-missing-prototypes -o $@ $< $(CORE_A) $(CMOCKA_LIBS) $(UNW_LIBS) $(LIBS_COMMON)

$(BUILD)/tests/tools/%: tests/tools/%.c $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) $(SAN_TOOL) -Wno-missing-prototypes -o $@ $< $(CORE_A) $(UNW_LIBS) $(LIBS_COMMON)

$(BUILD)/tests/bench/%: tests/bench/%.c $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BASEFLAGS) $(CFLAGS) $(SAN_TOOL) -Wno-missing-prototypes -o $@ $< $(CORE_A) $(UNW_LIBS) $(LIBS_COMMON)

# Test programs: frame pointers and no inlining, so traces show every function.
PROG_FLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -fno-ipa-pure-const -Iinclude
$(BUILD)/tests/programs/%.so: tests/programs/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(PROG_FLAGS) -Wall -Werror -fPIC -shared -o $@ $<
$(BUILD)/tests/programs/%: tests/programs/%.c Makefile
	@mkdir -p $(dir $@)
	$(CC) $(PROG_FLAGS) -Wall -Werror -o $@ $< -lpthread -ldl
$(BUILD)/tests/programs/%: tests/programs/%.cc Makefile
	@mkdir -p $(dir $@)
	$(CXX) $(PROG_FLAGS) -Wall -Werror -o $@ $< -lpthread -ldl

# trig_early links a library whose constructor starts a thread before ours runs.
$(BUILD)/tests/programs/trig_early: tests/programs/trig_early.c $(BUILD)/tests/programs/libtrig_early.so
	$(CC) $(PROG_FLAGS) -Wall -Werror -o $@ $< -L$(BUILD)/tests/programs -ltrig_early \
	    -Wl,-rpath,'$$ORIGIN' -lpthread

programs: $(PROG_BINS)
build: all $(UNIT_BINS) $(TTOOL_BINS) $(BENCH_BINS) programs

unit: build
	@tests/run-unit.sh $(BUILD)
integration: build
	@tests/run-integration.sh $(BUILD)
examples: all
	@if [ -n "$(EXAMPLE_MK)" ]; then $(MAKE) --no-print-directory -C docs/examples MTINJECT_BUILD=$(abspath $(BUILD)) check; fi

# `check` assumes the dependencies are present; `test` installs them first (the README's
# command) and runs everything twice: the plain build, then AddressSanitizer + UBSan.
check: build
	@tests/run-all.sh $(BUILD)
test:
	@$(MAKE) --no-print-directory deps
	@echo "== plain build"
	@$(MAKE) --no-print-directory check
	@echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (build-san/)"
	@$(MAKE) --no-print-directory check SANITIZE=1

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all $(BUILD)/tests/programs/demo
	@tests/demo.sh $(BUILD)

bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory build
	@tests/bench/run.sh $(BUILD)

clean:
	rm -rf build build-san

# --- install -----------------------------------------------------------------------------------
MAN_PAGES := $(wildcard docs/man/*.[1-8])
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR)/mtinject
	install -m 0755 $(LIB) $(DESTDIR)$(LIBDIR)/libmtinject.so
	install -m 0755 $(DLFILTER) $(DESTDIR)$(PKGLIBDIR)/mtinject-dlfilter.so
	install -m 0644 include/mtinject.h $(DESTDIR)$(INCLUDEDIR)/mtinject.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' mtinject.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/mtinject.pc
	@for m in $(MAN_PAGES); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
	  echo "install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/"; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/mtinject $(DESTDIR)$(LIBDIR)/libmtinject.so \
	      $(DESTDIR)$(PKGLIBDIR)/mtinject-dlfilter.so $(DESTDIR)$(INCLUDEDIR)/mtinject.h \
	      $(DESTDIR)$(PKGCONFIGDIR)/mtinject.pc
	-rmdir $(DESTDIR)$(PKGLIBDIR) 2>/dev/null
	@for m in $(MAN_PAGES); do s=$${m##*.}; b=$${m##*/}; echo "rm -f $(DESTDIR)$(MANDIR)/man$$s/$$b"; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$b; done

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
