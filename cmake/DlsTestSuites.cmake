# One ctest test per GoogleTest suite, not per test (gtest_discover_tests' way): every test
# process loads LibTorch first, and that costs 0.6-1.0 s on a 2-core machine, about as much
# as most unit tests take. 1,160 tests in 230 suites spend ~900 fewer seconds starting.
#
# After each build of `target`, cmake/DlsTestSuitesDiscovery.cmake lists the suites
# (--gtest_list_tests) into a file that ctest includes; each suite runs as
# `target --gtest_filter=SUITE.*`, so `ctest -R NAME` selects suites by name as before. A
# suite all of whose tests skip is reported as skipped (tests/main.cpp exits 77 when
# DLS_TESTS_ALL_SKIPPED_STATUS asks for it); a suite with some skipped tests passes, and
# tests/test_summary.sh lists every skipped test with its reason after `make test`.
function(dls_add_test_suites target)
  cmake_parse_arguments(ARG "" "TIMEOUT;DISCOVERY_TIMEOUT" "ENVIRONMENT" ${ARGN})
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  string(JOIN "|" environment ${ARG_ENVIRONMENT})  # a list does not pass through a custom command
  add_custom_command(
    TARGET ${target} POST_BUILD
    BYPRODUCTS "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>" -D "TESTS_FILE=${tests_file}"
            -D "ENVIRONMENT=${environment}" -D "TIMEOUT=${ARG_TIMEOUT}"
            -D "DISCOVERY_TIMEOUT=${ARG_DISCOVERY_TIMEOUT}" -P "${PROJECT_SOURCE_DIR}/cmake/DlsTestSuitesDiscovery.cmake"
    VERBATIM)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(WRITE "${include_file}"
       "if(EXISTS \"${tests_file}\")\n  include(\"${tests_file}\")\nelse()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
