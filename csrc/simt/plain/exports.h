// How the wrapper `wavekit check` generates exports a kernel of a plain source: the same
// descriptor as csrc/wavekit.h's WK_EXPORT_KERNEL (a launch entry point and the parameter
// list), built from the kernel's own function type, so the user's file needs no export line.
// Parameters: the scalars and pointers of wavekit.h (i8..u64, f32, f64; bool passes as u8),
// and structs of them whose fields the rewriter read from the source (wk_plain::fields<S>,
// generated after the file). Anything else is named `?TYPE`, for the host side to refuse.
#pragma once

#include <stddef.h>
#include <string.h>

#include <string>
#include <type_traits>
#include <utility>

#ifndef WK_KERNEL_DESC_DEFINED
#define WK_KERNEL_DESC_DEFINED
extern "C" {
// As in csrc/wavekit.h.
typedef int (*wk_kernel_launch_fn)(void* stream, const unsigned* grid, const unsigned* block,
                                   size_t dynamic_shared_bytes, void* const* args);
struct wk_kernel_desc {
  const char* name;
  unsigned warp_size;
  const char* (*params)(void);
  wk_kernel_launch_fn launch;
};
}
#endif

namespace wk_plain {

// The spelling of T in a parameter list: `?` and the compiler's name for what is not passable.
template <class T>
std::string unknown_type() {
  // GCC: "... [with T = NAME; std::string = ...]"; clang: "... [T = NAME]".
  std::string s = __PRETTY_FUNCTION__;
  const size_t at = s.find("T = ");
  if (at == std::string::npos) return "?";
  s = s.substr(at + 4);
  const size_t end = s.find_first_of(";]");
  return "?" + s.substr(0, end);
}

template <class T>
struct scalar_name {
  static std::string get() { return unknown_type<T>(); }
};
#define WK_PLAIN_SCALAR(T, s)                    \
  template <>                                    \
  struct scalar_name<T> {                        \
    static std::string get() { return s; }       \
  };
WK_PLAIN_SCALAR(bool, "u8")
WK_PLAIN_SCALAR(char, "i8")
WK_PLAIN_SCALAR(signed char, "i8")
WK_PLAIN_SCALAR(unsigned char, "u8")
WK_PLAIN_SCALAR(short, "i16")
WK_PLAIN_SCALAR(unsigned short, "u16")
WK_PLAIN_SCALAR(int, "i32")
WK_PLAIN_SCALAR(unsigned, "u32")
WK_PLAIN_SCALAR(long, "i64")
WK_PLAIN_SCALAR(unsigned long, "u64")
WK_PLAIN_SCALAR(long long, "i64")
WK_PLAIN_SCALAR(unsigned long long, "u64")
WK_PLAIN_SCALAR(float, "f32")
WK_PLAIN_SCALAR(double, "f64")
#undef WK_PLAIN_SCALAR

// The fields of struct S, "name@offset:type;..." (specialised by the generated wrapper for
// each struct of the file).
template <class S>
struct fields {
  static constexpr bool known = false;
  static std::string get() { return ""; }
};

template <class T>
std::string param_name() {
  typedef typename std::remove_cv<T>::type U;
  if constexpr (std::is_pointer<U>::value) {
    typedef typename std::remove_pointer<U>::type E;
    typedef typename std::remove_cv<E>::type B;
    const std::string ro = std::is_const<E>::value ? "const " : "";
    if constexpr (vector_parts<B>::n > 0) {
      // A CUDA vector type: its components, n to an item.
      const std::string e = scalar_name<typename vector_parts<B>::elem>::get();
      if (e[0] == '?') return unknown_type<U>();
      return ro + e + (vector_parts<B>::n > 1 ? "x" + std::to_string(vector_parts<B>::n) : "") +
             "*";
    } else {
      const std::string e = scalar_name<B>::get();
      if (e[0] == '?') return unknown_type<U>();
      return ro + e + "*";
    }
  } else if constexpr (std::is_class<U>::value) {
    if (!fields<U>::known) return unknown_type<U>();
    const std::string t = unknown_type<U>().substr(1);
    return "struct " + t + "/" + std::to_string(sizeof(U)) + "{" + fields<U>::get() + "}";
  } else {
    return scalar_name<U>::get();
  }
}

// One field of a struct parameter, for fields<S>::get.
template <class F>
std::string field(const char* name, size_t offset) {
  return std::string(name) + "@" + std::to_string(offset) + ":" + param_name<F>() + ";";
}

// The parameter list of kernel type void(A...). The host side calls it through the
// descriptor: no exception may leave it. Without memory for the list it names one type the
// host side refuses (a later call tries again).
template <class... A>
const char* params(void (*)(A...)) noexcept {
  try {
    static const std::string s = [] {
      std::string out;
      ((out += (out.empty() ? "" : ","), out += param_name<A>()), ...);
      return out;
    }();
    return s.c_str();
  } catch (...) {
    return "?(no memory for the parameter list)";
  }
}

// Parameter values from the host's argument array: each read as bytes, so a struct the host
// laid out at any alignment is taken as it is.
template <class A>
A arg(void* p) {
  typename std::aligned_storage<sizeof(A), alignof(A)>::type buf;
  memcpy(&buf, p, sizeof(A));
  return *reinterpret_cast<A*>(&buf);
}
template <class... A, size_t... I, class L>
int unpack(void (*)(A...), void* const* args, std::index_sequence<I...>, L launch) {
  return launch(arg<A>(args[I])...);
}
template <class... A, class L>
int call(void (*k)(A...), void* const* args, L launch) {
  return unpack(k, args, std::index_sequence_for<A...>{}, launch);
}

}  // namespace wk_plain

#define WK_PLAIN_FIELD(S, f) \
  s += ::wk_plain::field<decltype(((S*)nullptr)->f)>(#f, offsetof(S, f))

// Exports kernel `...` (its qualified name with template arguments) as descriptor `sym` named
// `display`.
#define WK_PLAIN_EXPORT(sym, display, ...)                                                    \
  extern "C" __attribute__((visibility("default"))) int sym##_launch(                        \
      void* stream, const unsigned* g, const unsigned* b, size_t shmem, void* const* args) {  \
    return ::wk_plain::call(&__VA_ARGS__, args, [&](auto... a) {                              \
      WK_LAUNCH(dim3(g[0], g[1], g[2]), dim3(b[0], b[1], b[2]), shmem,                        \
                (::WK_NS::host::stream_t)stream, __VA_ARGS__)(a...);                          \
      return ::WK_NS::host::launch_error();                                                   \
    });                                                                                       \
  }                                                                                           \
  extern "C" __attribute__((visibility("default"))) const wk_kernel_desc sym = {            \
      display, WK_WARP_SIZE, [] { return ::wk_plain::params(&__VA_ARGS__); }, &sym##_launch}
