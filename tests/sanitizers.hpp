#pragma once
// Which sanitizer this test program was built with, for g++ (__SANITIZE_ADDRESS__) and clang
// (__has_feature) alike. Under AddressSanitizer the caching allocator and the small-object pool are
// off (so use-after-free stays visible) and ASan's quarantine holds freed memory, so tests of reuse
// and of a flat resident set size do not apply there. ThreadSanitizer keeps both (make tsan checks
// the allocators that really run), but its own allocator makes resident-set sizes meaningless.
#if defined(__SANITIZE_ADDRESS__)
#define KINDLING_TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define KINDLING_TEST_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(KINDLING_TEST_ASAN)
#define KINDLING_TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(KINDLING_TEST_TSAN)
#define KINDLING_TEST_TSAN 1
#endif
#endif
