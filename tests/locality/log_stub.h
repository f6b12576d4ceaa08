/* Counter of log lines written through the test's dart__log stand-in. */
#ifndef DART_TEST_LOG_STUB_H
#define DART_TEST_LOG_STUB_H
extern int log_stub_count;
#endif
