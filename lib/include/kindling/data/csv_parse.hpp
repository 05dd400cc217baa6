#pragma once
/// @file
/// The pieces of a strict CSV reader, usable on their own: splitting a line into fields, parsing a
/// field as a number, and turning a parsed number into a class label. CsvDataset is built from them;
/// each refuses what a hostile or sloppy file can hold (overflowing numbers, 1e300 as a class,
/// NaN where a label is due) instead of letting it through an undefined cast.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kindling::data::csv {

/// `s` without leading/trailing spaces, tabs and a trailing carriage return (Windows line ends).
std::string_view trim(std::string_view s);

/// The fields of one line, each trimmed. "a,,b" has 3 fields; quoting is not supported.
std::vector<std::string_view> split_fields(std::string_view line, char delimiter);

/// The field as a double (anything strtod accepts, including "nan" and "inf"), or nullopt when it is
/// empty, not entirely a number, or out of double's range ("1e999").
std::optional<double> parse_number(std::string_view field);

/// Why a value cannot be a class label, or nullopt when it can: labels are whole numbers in
/// [-2^53, 2^53] (exact in a double, so the int64 cast is defined and loses nothing).
std::optional<std::string> label_problem(double value);

/// `value` as an int64 class label; throws ValueError naming `what` when label_problem() objects.
std::int64_t to_class_label(double value, const std::string& what);

}  // namespace kindling::data::csv
