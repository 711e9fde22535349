#define AMB 1
