# Run by cmake -P after each build of the test executable (cmake/DlsTestSuites.cmake): lists
# its GoogleTest suites and writes one add_test per suite into TESTS_FILE.
#   TEST_EXECUTABLE, TESTS_FILE, ENVIRONMENT (VAR=VALUE items joined by |), TIMEOUT (a suite's
#   seconds; empty: ctest's default) and DISCOVERY_TIMEOUT
execute_process(
  COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
  TIMEOUT ${DISCOVERY_TIMEOUT}
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE listing_errors
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE "${TESTS_FILE}")
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${status}):\n${listing}${listing_errors}")
endif()

# The listing: a suite's line is its name and a dot at the start of the line (a typed or
# parameterized suite's may end in "  # TypeParam = ..."); its tests' lines are indented.
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( |$)")
    list(APPEND suites "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES suites)
list(LENGTH suites count)
if(count EQUAL 0)
  file(REMOVE "${TESTS_FILE}")
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests listed no suite:\n${listing}")
endif()

string(REPLACE "|" ";" environment "${ENVIRONMENT}")
set(timeout "")  # none given: ctest's default or its --timeout
if(TIMEOUT)
  set(timeout "TIMEOUT ${TIMEOUT}")
endif()
set(content "# Written by cmake/DlsTestSuitesDiscovery.cmake: one test per GoogleTest suite.\n")
foreach(suite IN LISTS suites)
  string(APPEND content "add_test([==[${suite}]==] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${suite}.*]==])\n"
         "set_tests_properties([==[${suite}]==] PROPERTIES ENVIRONMENT [==[${environment}]==] "
         "SKIP_RETURN_CODE 77 ${timeout})\n")
endforeach()
file(WRITE "${TESTS_FILE}" "${content}")
