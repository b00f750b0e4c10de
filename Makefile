# ompcl: install, demo, tests and benchmarks. Every target installs what it needs.
PYTHON ?= python3
PIP ?= $(PYTHON) -m pip
APT_PACKAGES = opencl-headers ocl-icd-opencl-dev pocl-opencl-icd gcc make clang-15 libomp-15-dev openmpi-bin libopenmpi-dev
CLASS ?= S
N ?= 2000
SEED ?= 0
JOBS ?= 2

.PHONY: install sysdeps demo test bench bench-native bench-translate fuzz model clean

sysdeps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else \
	    echo "ompcl needs these system packages; run:"; \
	    echo "  sudo apt-get install -y$$missing"; \
	  fi; \
	fi

# the native launcher replaces pip's Python scripts ompcl and ompcl-cc (same commands, faster
# start); where it cannot be built the Python scripts stay
install: sysdeps
	$(PIP) install -q -e '.[test]'
	-@$(PYTHON) -m ompcl.driver.launcher

demo: install
	$(PYTHON) -m ompcl.demo

# pytest exit 5 = no tests collected: said plainly, not mistaken for a failing test
test: install
	@$(PYTHON) -m pytest -q -n 2 tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make test: pytest collected no tests"; exit 0; fi; exit $$rc

# the NAS suite, every variant, verified; results, figures and training rows in $(BENCH_DIR)
BENCH_DIR ?= bench-results/nas-$(CLASS)
REPEATS ?= 3
bench: install
	$(PYTHON) -m ompcl.cli bench translate
	$(PYTHON) -m ompcl.cli bench nas --classes $(CLASS) --repeats $(REPEATS) -o $(BENCH_DIR)

bench-native: install
	$(PYTHON) -m ompcl.bench.npb_native --classes S,W,A --threads 1,2

bench-translate: install
	$(PYTHON) -m ompcl.bench.translate_speed

fuzz: install
	$(PYTHON) -m ompcl.fuzz --count $(N) --seed $(SEED) --jobs $(JOBS) --keep-going --record fuzz-record.json

# retrain the default dispatch model on this machine (models/README.md): measure every program
# at hand on the OpenCL device and on the host, then train; COLLECT/TRAIN add options
MODEL_DATA ?= models/default-rows.csv
COLLECT ?=
TRAIN ?=
model: install
	$(PYTHON) -m ompcl.bench.collect -o $(MODEL_DATA) --work build/collect --nas-classes S,W \
	  --corpus-scales 1,16,256 --polybench-sizes SMALL,STANDARD --fuzz 40 --repeats 3 \
	  --timeout 120 $(COLLECT)
	$(PYTHON) -m ompcl.cli train $(MODEL_DATA) -o models/default.json --trees 20 $(TRAIN)

clean:
	rm -rf build dist *.egg-info .pytest_cache ompcl_out demo_out fuzz-record.json
	$(MAKE) -C nas_benchmarks clean
