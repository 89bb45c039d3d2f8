// What a runtime compile lacks: NVRTC and hipRTC (WK_RTC, set by width.h) compile device code
// with no C library and no vendor runtime header on the include path, so the fixed-width
// integers the layer uses are defined here, and the host halves of the arch headers and of
// wavekit.h (launchers, WK_EXPORT_KERNEL's descriptors) are left out: a runtime-compiled module's
// kernels are launched by the user's own host code (cudarc, hipModuleLaunchKernel).
#pragma once

#if defined(WK_RTC)
#if defined(__HIPCC_RTC__)
// hipRTC's preinclude defines the 32- and 64-bit ones (uint64_t as `unsigned long`) and size_t.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
#else
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long int64_t;
typedef unsigned long uint64_t;
// NVRTC has no __builtin_memcpy: ops.h's bit casts go through a union there (NVRTC, like every
// compiler wavekit supports, defines reading the other member).
#define WK_RTC_UNION_BITCAST 1
#endif
#else
#include <stdint.h>
#endif
