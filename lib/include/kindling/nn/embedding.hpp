#pragma once
/// @file
/// nn::Embedding: a lookup table of learnable vectors, indexed by int64 ids (words, classes...).
#include <cstdint>
#include <string>

#include "kindling/nn/module.hpp"

namespace kindling::nn {

/// indices (int64, any shape) → [*indices.shape, embedding_dim]. Weight ~ N(0, 1), like PyTorch.
/// Only the rows that were looked up receive gradient.
class Embedding : public Module {
 public:
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim);
  Tensor forward(const Tensor& indices) override;
  std::string type_name() const override { return "Embedding"; }
  std::string extra_repr() const override {
    return std::to_string(num_embeddings) + ", " + std::to_string(embedding_dim);
  }
  std::int64_t num_embeddings, embedding_dim;
  Tensor weight;  ///< [num_embeddings, embedding_dim]
};

}  // namespace kindling::nn
