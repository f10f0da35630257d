// shim.h lets a host C++ compiler build kernels/count3.cu (count3emu.cpp):
// CUDA's qualifiers vanish, a launch is one thread (blockDim = gridDim =
// 1, so every GRID_LOOP walks all its items), __shared__ arrays are the
// thread's own, atomics are plain adds and barriers do nothing.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>
#define __global__
#define __device__
#define __shared__
#define __forceinline__ inline
struct Dim {
    long long x;
};
static Dim threadIdx = {0}, blockIdx = {0}, blockDim = {1}, gridDim = {1};
static inline void __syncthreads() {}
static inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
    unsigned long long o = *p;
    *p += v;
    return o;
}
static inline unsigned int atomicAdd(unsigned int *p, unsigned int v) {
    unsigned int o = *p;
    *p += v;
    return o;
}
struct uint4 {
    unsigned int x, y, z, w;
};
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return uint4{a, b, c, d}; }
template <class T> static inline T min(T a, T b) { return a < b ? a : b; }
template <class T> static inline T max(T a, T b) { return a > b ? a : b; }
