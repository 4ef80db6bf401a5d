// The message a refusal carries, for the tests of refusals: error_of<Error>(call) is what() of
// the Error that call() throws, or `otherwise` when it throws none. An error of another type
// goes on, and fails the test.
#pragma once

#include <exception>
#include <string>
#include <utility>

namespace dls::test {

template <typename Error = std::exception, typename Call>
std::string error_of(Call&& call, std::string otherwise = "") {
  try {
    std::forward<Call>(call)();
  } catch (const Error& error) {
    return error.what();
  }
  return otherwise;
}

}  // namespace dls::test
