// Three queries attend over three keys: each row of the weights says how much of each value it takes.
#include <attnlab/attnlab.hpp>

#include <iostream>

int main() {
  attnlab::Matrix q = attnlab::Matrix::Identity(3, 4);  // query i and key i point the same way
  attnlab::Matrix v(3, 4);
  v << 1, 2, 3, 4,
       5, 6, 7, 8,
       9, 10, 11, 12;
  const attnlab::AttentionResult r = attnlab::scaled_dot_product_attention(q, q, v);
  std::cout << "weights:\n" << r.weights << "\noutput:\n" << r.output << "\n";
}
