/* Prints docs/env.md from the DART environment-variable table. */
#include <stdio.h>

#include "dart_env.h"

int main(void)
{
  dart__env_write_markdown(stdout);
  return 0;
}
