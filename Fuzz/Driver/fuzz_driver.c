// The declaration in include/fuzz_driver.h is the whole target: libFuzzer defines it.
#include "fuzz_driver.h"
