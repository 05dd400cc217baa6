#pragma once
/// @file
/// Where a call came from: the file and line of the caller, for messages that point at the
/// learner's code (anomaly mode, module hooks).
///
/// Why not `std::source_location`? It is the same idea, but clang 14 with libstdc++ 12 (the compilers
/// Kindling is built with) has no `<source_location>`. Both compilers have the builtins it is made of:
/// `__builtin_FILE()` and `__builtin_LINE()` in a default argument are evaluated where the call is
/// written, so `SourceLocation where = SourceLocation::current()` as a parameter gives the caller's line.
namespace kindling {

struct SourceLocation {
  /// The place of the call that evaluates this default argument.
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          unsigned line = __builtin_LINE(),
                                          const char* function = __builtin_FUNCTION()) noexcept {
    SourceLocation loc;
    loc.file_ = file;
    loc.line_ = line;
    loc.function_ = function;
    return loc;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr unsigned line() const noexcept { return line_; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  unsigned line_ = 0;
  const char* function_ = "";
};

}  // namespace kindling
