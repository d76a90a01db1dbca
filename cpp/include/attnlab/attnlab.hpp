// attnlab: the attention mechanism of transformers, with every intermediate inspectable.
// This header includes every public header (tests/native/umbrella_test.cpp uses a name from each
// subsystem through it alone); a program may include just the headers it needs instead.
#pragma once

#include "attnlab/tensor/api.hpp"
#include "attnlab/version.hpp"

#include "attnlab/attention/attention.hpp"
#include "attnlab/attention/backward.hpp"
#include "attnlab/attention/batched_attention.hpp"
#include "attnlab/attention/dropout.hpp"
#include "attnlab/attention/grouped_attention.hpp"
#include "attnlab/attention/mask.hpp"
#include "attnlab/attention/positional.hpp"
#include "attnlab/attention/rotary.hpp"
#include "attnlab/attention/softmax.hpp"

#include "attnlab/gpt/gpt.hpp"
#include "attnlab/gpt/gpt_session.hpp"
#include "attnlab/gpt/gpt_training.hpp"
#include "attnlab/gpt/head_scores.hpp"
#include "attnlab/gpt/sampling.hpp"

#include "attnlab/interp/attribution.hpp"
#include "attnlab/interp/attribution_patching.hpp"
#include "attnlab/interp/cache_algebra.hpp"
#include "attnlab/interp/circuits.hpp"
#include "attnlab/interp/hook_points.hpp"
#include "attnlab/interp/hooked_gpt.hpp"
#include "attnlab/interp/llama_interp.hpp"
#include "attnlab/interp/logit_lens.hpp"
#include "attnlab/interp/patching.hpp"

#include "attnlab/io/safetensors.hpp"
#include "attnlab/io/safetensors_stream.hpp"

#include "attnlab/llama/llama.hpp"
#include "attnlab/llama/llama_config.hpp"
#include "attnlab/llama/llama_loader.hpp"
#include "attnlab/llama/llama_session.hpp"

#include "attnlab/layers/activation.hpp"
#include "attnlab/layers/attention_layer.hpp"
#include "attnlab/layers/batched_encoder_layer.hpp"
#include "attnlab/layers/batched_multi_head_attention.hpp"
#include "attnlab/layers/decoder_layer.hpp"
#include "attnlab/layers/embedding.hpp"
#include "attnlab/layers/encoder_layer.hpp"
#include "attnlab/layers/feed_forward.hpp"
#include "attnlab/layers/linear.hpp"
#include "attnlab/layers/multi_head_attention.hpp"
#include "attnlab/layers/norm.hpp"

#include "attnlab/referent/referent_encoder.hpp"

#include "attnlab/seq2seq/en_fr_grammar.hpp"
#include "attnlab/seq2seq/seq2seq.hpp"
#include "attnlab/seq2seq/seq2seq_training.hpp"
#include "attnlab/seq2seq/translation_scores.hpp"

#include "attnlab/tensor/error.hpp"
#include "attnlab/tensor/limits.hpp"
#include "attnlab/tensor/matrix.hpp"
#include "attnlab/tensor/parameter.hpp"
#include "attnlab/tensor/rng.hpp"
#include "attnlab/tensor/tensor.hpp"
#include "attnlab/tensor/threads.hpp"
#include "attnlab/tensor/trace.hpp"

#include "attnlab/text/bpe.hpp"
#include "attnlab/text/hf_tokenizer.hpp"
#include "attnlab/text/tokenizer.hpp"

#include "attnlab/training/induction_scores.hpp"
#include "attnlab/training/loss.hpp"
#include "attnlab/training/models.hpp"
#include "attnlab/training/optimizer.hpp"
#include "attnlab/training/tasks.hpp"
#include "attnlab/training/training.hpp"
