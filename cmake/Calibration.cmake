# calibration/measure.py's tests (issue 22): the GPU harness run end to end on the CPU with the pinned
# reference (torch, transformers, peft) of tests/reference/requirements.txt, which scripts/test.sh
# installs into .venv-reference/. Without that venv the test fails, saying how to make it: a suite
# that skipped it would no longer show that the first GPU session can run measure.py unchanged.
if(NOT NEURARCH_BUILD_TESTS)
  return()
endif()
enable_testing()
add_test(NAME calibration_measure
         COMMAND sh -c "if [ ! -x .venv-reference/bin/python ]; then echo 'calibration_measure: no .venv-reference/ (scripts/test.sh makes it: /usr/bin/python3 -m venv .venv-reference && .venv-reference/bin/pip install -r tests/reference/requirements.txt)'; exit 1; fi; exec .venv-reference/bin/python -m unittest discover -s calibration -p 'test_*.py'"
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
# Fails instead of skipping when transformers or peft is missing from the venv.
set_tests_properties(calibration_measure PROPERTIES TIMEOUT 600
                     ENVIRONMENT "NEURARCH_REFERENCE_REQUIRED=1;PYTHONDONTWRITEBYTECODE=1")
