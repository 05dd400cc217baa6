#pragma once
/// @file
/// Tabular data from a CSV file: a header row, numeric feature columns and one label column.
/// The file is parsed once into a float32 [N, F] feature tensor and an [N] label tensor; errors
/// name the line and the column. (Fields are plain numbers: quoted fields are not supported.)
/// The field-level parsing lives in kindling/data/csv_parse.hpp.
#include <cstdint>
#include <string>
#include <vector>

#include "kindling/data/dataset.hpp"

namespace kindling::data {

/// What CsvDataset does with NaN or infinite feature values ("nan", "inf" parse as numbers): they
/// are rarely meant, and one NaN feature turns a whole training run's loss into NaN.
enum class NonFinite {
  Allow,  ///< keep them, silently
  Warn,   ///< keep them, and print one warning per file (count and first line) to stderr
  Error,  ///< refuse the file with an IOError naming the first line and column
};

/// Options of CsvDataset.
struct CsvOptions {
  /// Name of the label column (as in the header); empty = the last column.
  std::string label_column;
  /// Field separator.
  char delimiter = ',';
  /// Label dtype: int64 for class indices (values must be whole numbers), float32 for regression.
  DType label_dtype = kInt64;
  /// NaN/inf features (NaN/inf labels are always refused for int64 labels; for float labels they
  /// follow this option too). Refused by default: a file with them is far more often broken than
  /// meant, and the NaN would only show up later, as a NaN loss.
  NonFinite non_finite = NonFinite::Error;
};

class CsvDataset {
 public:
  /// Reads `path`. Throws IOError for a missing file, and IOError with "line N" for a row with
  /// the wrong number of fields or a field that is not a number.
  explicit CsvDataset(const std::string& path, CsvOptions options = {});
  std::int64_t size() const { return features_.size(0); }
  /// {features[index] float32 [F] (a view), label 0-d}.
  Example get(std::int64_t index) const;
  const Tensor& features() const { return features_; }
  const Tensor& labels() const { return labels_; }
  /// Names of the feature columns, in order.
  const std::vector<std::string>& feature_names() const { return feature_names_; }

 private:
  Tensor features_, labels_;
  std::vector<std::string> feature_names_;
};

}  // namespace kindling::data
