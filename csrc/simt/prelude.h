// The width layer for code built for the SIMT executor (build/simt.rs compiles every such
// source twice, with -DWK_SIMT -DWK_WARP_SIZE=32 and =64). It plays the part of
// csrc/wavekit/width.h for the host build: the width, its mask type, a namespace per width so
// both builds link into one binary, and the executor's arch header.
#pragma once

#include <stdint.h>

#if !defined(WK_SIMT) || !defined(WK_WARP_SIZE)
#error "csrc/simt sources are built by build/simt.rs with -DWK_SIMT -DWK_WARP_SIZE=32|64"
#endif

#if WK_WARP_SIZE == 64
#define WK_NS wk_simt64
typedef unsigned long long wk_lanemask_t;
#define WK_FULL_MASK (~0ull)
#elif WK_WARP_SIZE == 32
#define WK_NS wk_simt32
typedef unsigned int wk_lanemask_t;
#define WK_FULL_MASK (~0u)
#else
#error "WK_WARP_SIZE must be 32 or 64"
#endif

#define WK_LOGICAL_GROUP 32
typedef unsigned long long wk_hostmask_t;

// extern "C" names carry the width: WK_SIMT_EXPORT(f) is wk_simt32_f or wk_simt64_f.
#define WK_SIMT_PASTE2(a, b, c) a##b##_##c
#define WK_SIMT_PASTE(a, b, c) WK_SIMT_PASTE2(a, b, c)
#define WK_SIMT_EXPORT(name) WK_SIMT_PASTE(wk_simt, WK_WARP_SIZE, name)

#include "arch_simt.h"
