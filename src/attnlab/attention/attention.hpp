// attnlab::attention, the whole family in one include.
//
//   common.hpp        tensor aliases, AttendMask, additive_mask(); MASK POLARITY for the folder
//   score.hpp         Score: dot, scaled_dot, general, additive (Bahdanau), cosine, location
//   attend.hpp        Attention (score -> mask -> softmax -> weighted sum), fused
//                     scaled_dot_attention() / sdpa_raw() fast path
//   local.hpp         LocalAttention: Luong local-m and local-p (Gaussian, differentiable p_t)
//   pooling.hpp       ContextPooling: learned context vector (HAN, MMoE attention gate)
//   multihead.hpp     MultiheadAttention: PyTorch nn.MultiheadAttention semantics and names
//   disagreement.hpp  Li et al. 2018 disagreement terms (subspace, position, output)
//   transformer.hpp   Transformer encoder/decoder layers (PyTorch names), KV-cached decoder step
//   relative.hpp      RelMultiheadAttention: Transformer-XL relative attention with memory
//   autoint.hpp       InteractingLayer: AutoInt's multi-head self-attention over feature fields
//   din.hpp           ActivationUnit: DIN's candidate-vs-behaviour MLP scores (unnormalized by default)
// Every mechanism has forward (cache optional) and backward side by side; backward
// overwrites input grads and accumulates parameter grads (Param::grad).
#pragma once
#include "attnlab/attention/attend.hpp"
#include "attnlab/attention/autoint.hpp"
#include "attnlab/attention/common.hpp"
#include "attnlab/attention/din.hpp"
#include "attnlab/attention/disagreement.hpp"
#include "attnlab/attention/local.hpp"
#include "attnlab/attention/multihead.hpp"
#include "attnlab/attention/pooling.hpp"
#include "attnlab/attention/relative.hpp"
#include "attnlab/attention/transformer.hpp"
#include "attnlab/attention/score.hpp"
