/* The floor for bench/ratios.sh: a static C hello world (process start-up and one write). */
#include <stdio.h>
int main(void) { puts("hello, world"); return 0; }
