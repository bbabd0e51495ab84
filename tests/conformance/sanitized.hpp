// Whether this test program is built with AddressSanitizer (scripts/sanitize.sh), which owns
// malloc and makes every integration much slower than in Release.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define CMB_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CMB_TEST_SANITIZED 1
#endif
#endif

namespace cmb::test {

#ifdef CMB_TEST_SANITIZED
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

// The horizon of a test that integrates for seconds: `release` in Release, `sanitized` (shorter,
// on the same code paths) under the sanitizers, so that the sanitizer job runs every test
// within its time.
inline double horizon(double release, double sanitized) {
  return kSanitizedBuild ? sanitized : release;
}

}  // namespace cmb::test
