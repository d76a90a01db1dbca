// expect_error(call, message): `call` must throw attnlab::Error whose message is exactly `message`.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "attnlab/tensor/error.hpp"

namespace attnlab {

template <typename Call>
void expect_error(Call&& call, const std::string& message) {
  try {
    call();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

// `call` must throw attnlab::Error whose message contains `part` (for messages that list many names).
template <typename Call>
void expect_error_containing(Call&& call, const std::string& part) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace attnlab
