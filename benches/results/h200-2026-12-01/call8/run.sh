# Call 8 (the device tool's command): scripts/gpu-test.sh's runner, sanitize mode.
mkdir -p /tmp/g && tar -C /tmp/g -xJf .gpu-perf-h/tests-a.tar.xz && cp .gpu-perf-h/run.sh /tmp/g/tests/ && SANITIZE_TIMEOUT=300 timeout 480 bash /tmp/g/tests/run.sh sanitize 2>&1 | tail -n 60
