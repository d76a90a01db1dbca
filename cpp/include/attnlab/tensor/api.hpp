// What every public header includes first: the C++20 requirement, said once, and the markers that
// make a shared libattnlab export exactly the public headers' names (cpp/CMakeLists.txt builds with
// hidden visibility; the declarations between ATTNLAB_API_BEGIN and ATTNLAB_API_END are visible).
#pragma once

#if __cplusplus < 202002L && !(defined(_MSVC_LANG) && _MSVC_LANG >= 202002L)
#error "attnlab needs C++20: compile with -std=c++20 (CMake: link attnlab::attnlab, which carries cxx_std_20)"
#include <attnlab-needs-cpp20>  // a missing file is fatal: compilation stops at the message above
#endif

#if defined(__GNUC__)  // GCC and Clang
#define ATTNLAB_API_BEGIN _Pragma("GCC visibility push(default)")
#define ATTNLAB_API_END _Pragma("GCC visibility pop")
#else
#define ATTNLAB_API_BEGIN
#define ATTNLAB_API_END
#endif
