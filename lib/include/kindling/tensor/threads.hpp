#pragma once
/// @file
/// How many threads Kindling's matrix products use (torch.set_num_threads / get_num_threads).
///
/// The default comes from the environment: `KINDLING_NUM_THREADS`, else `OPENBLAS_NUM_THREADS`, else
/// the policy "one thread for the layers' products, every core for big ones" (a product of fewer
/// than ~67M multiply-adds finishes in about a millisecond on one core, and a second thread spinning
/// between such products costs more than it saves).

namespace kindling {

/// Every product uses `n` threads from now on (n >= 1; ValueError otherwise), in every thread.
void set_num_threads(int n);

/// The count set by set_num_threads or the environment; 0 when the default policy decides per
/// product.
int get_num_threads();

}  // namespace kindling
