// roofline --op matmul, ffn, attention (issue 16, item 1) and flops ffn's --layers and
// --batch/--seq (item 4): FLOP from flops.h, the least bytes, and the verdict.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "assumption_flags.h"
#include "napkin/ground/error.h"
#include "napkin/model/flops.h"
#include "napkin/plans/roofline.h"
#include "run_napkin.h"

using namespace napkin;
using namespace napkin::units;

namespace {

// A100 SXM4 80GB: 312 TFLOP/s dense FP16 tensor, 2,039 GB/s HBM2e (NVIDIA A100 datasheet,
// nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf; data/presets/hardware/a100-sxm-80gb.json).
constexpr FlopRate kA100Fp16 = 312.0 * TFLOP_per_s;
constexpr Bandwidth kA100Hbm = 2.039 * TB_per_s;

double item(const ResultSet& rs, std::string_view key) {
  const Item* i = rs.find(key);
  REQUIRE(i != nullptr);
  return i->value.num;
}

RooflineInput a100(Dtype dtype) {
  RooflineInput in;
  in.peak = kA100Fp16;
  in.bandwidth = kA100Hbm;
  in.dtype = dtype;
  return in;
}

}  // namespace

TEST_CASE("a 1024³ fp16 matmul is 1024/3 FLOP/B and compute-bound on an A100", "[roofline]") {
  // C = 2·1024³ = 2,147,483,648 FLOP; Q = 3·1024²·2 B = 6,291,456 B; I = 2·1024³ / (6·1024²) = 1024/3
  // = 341.33 FLOP/B, above the ridge 312e12 / 2.039e12 = 153.02 FLOP/B.
  RooflineInput in = a100(Dtype::fp16);
  in.matmul = BatchedMatmul{1.0 * one, 1024.0 * one, 1024.0 * one, 1024.0 * one};
  const Roofline r = roofline(in);
  CHECK(r.intensity.in(flop_per_byte) == 1024.0 / 3.0);
  CHECK(r.ridge.in(flop_per_byte) == Approx(312.0 / 2.039).epsilon(1e-12));
  CHECK(r.compute_bound);
  CHECK(r.attainable == kA100Fp16);
  ResultSet rs;
  roofline(in, rs);
  CHECK(item(rs, "flops") == 2147483648.0);
  CHECK(item(rs, "bytes") == 6291456.0);
  CHECK(item(rs, "time") == Approx(2147483648.0 / 312e12).epsilon(1e-12));  // compute time > 6291456 / 2.039e12
  CHECK(rs.find("bound")->value.str == "compute");
}

TEST_CASE("the CLI gives the 1024³ fp16 matmul on a100-sxm-80gb as 341.33 FLOP/B, compute", "[roofline][cli]") {
  const auto r = napkin_test::run_napkin(
      "roofline --op matmul --m 1024 --k 1024 --n 1024 --dtype fp16 --hw a100-sxm-80gb --json");
  CHECK(r.code == 0);
  CHECK(r.out.find(R"("intensity":{"value":341.3333333333333,"unit":"FLOP/B")") != std::string::npos);
  CHECK(r.out.find(R"("bound":{"value":"compute")") != std::string::npos);
  CHECK(r.out.find(R"("bytes":{"value":6291456,)") != std::string::npos);
}

TEST_CASE("a batched matmul reads each product's A and B: 4 × [2048,64]@[64,2048] fp16 is memory-bound",
          "[roofline]") {
  // C = 2·4·2048·64·2048 = 2,147,483,648 FLOP; Q = 4·(2048·64 + 64·2048 + 2048·2048)·2 B
  // = 4·4,456,448·2 = 35,651,584 B = 17·2²¹; I = 2³¹ / (17·2²¹) = 1024/17 = 60.24 FLOP/B < 153.
  RooflineInput in = a100(Dtype::fp16);
  in.matmul = BatchedMatmul{4.0 * one, 2048.0 * one, 64.0 * one, 2048.0 * one};
  const Roofline r = roofline(in);
  CHECK(r.intensity.in(flop_per_byte) == 1024.0 / 17.0);
  CHECK_FALSE(r.compute_bound);
  ResultSet rs;
  roofline(in, rs);
  CHECK(item(rs, "flops") == 2147483648.0);
  CHECK(item(rs, "bytes") == 35651584.0);
  CHECK(item(rs, "time") == Approx(35651584.0 / 2.039e12).epsilon(1e-12));
  // The same product without the batch: a quarter of both.
  in.matmul->batch = 1.0 * one;
  ResultSet one_product;
  roofline(in, one_product);
  CHECK(item(one_product, "flops") * 4.0 == 2147483648.0);
  CHECK(item(one_product, "bytes") * 4.0 == 35651584.0);
}

TEST_CASE("a gated FFN for one token reads its weights once: about 1 FLOP/B, memory-bound", "[roofline]") {
  // D = 4096, F = 14336, gated, 1 token, fp16. C = 6·4096·14336 = 352,321,536 FLOP (flops ffn);
  // Q = (3·4096·14336 weights + 2·1·4096 activations)·2 B = (176,160,768 + 8,192)·2 = 352,337,920 B.
  RooflineInput in = a100(Dtype::fp16);
  in.ffn = FfnInput{.d = 4096.0 * one, .f = 14336.0 * one, .gated = true};
  ResultSet rs;
  roofline(in, rs);
  CHECK(item(rs, "flops") == 352321536.0);
  CHECK(item(rs, "bytes") == 352337920.0);
  CHECK(item(rs, "intensity") == 352321536.0 / 352337920.0);
  CHECK(rs.find("bound")->value.str == "memory");
  // 4 sequences of 2048 tokens: C = 352,321,536·8192 = 2,886,218,022,912 FLOP;
  // Q = (176,160,768 + 2·8192·4096)·2 = (176,160,768 + 67,108,864)·2 = 486,539,264 B.
  in.ffn->batch = 4.0 * one;
  in.ffn->seq = 2048.0 * one;
  ResultSet batched;
  roofline(in, batched);
  CHECK(item(batched, "flops") == 2886218022912.0);
  CHECK(item(batched, "flops") == ffn_flops(*in.ffn).in(flop));
  CHECK(item(batched, "bytes") == 486539264.0);
  CHECK(batched.find("bound")->value.str == "compute");  // 5932 FLOP/B > 153
}

TEST_CASE("the attention core reads Q, K, V and writes O once: T/s FLOP/B for MHA", "[roofline]") {
  // B = 1, T = 4096, D = 4096, fp16. C = 4·B·T²·D = 4·4096³ = 274,877,906,944 FLOP (attention_flops'
  // QKᵀ and A·V, no projections); Q = 4·B·T·D·2 B = 134,217,728 B; I = 4·T²·D / (8·T·D) = T/2 = 2048.
  RooflineInput in = a100(Dtype::fp16);
  in.attention = AttentionInput{.batch = 1.0 * one, .seq = 4096.0 * one, .d = 4096.0 * one};
  ResultSet rs;
  roofline(in, rs);
  CHECK(item(rs, "flops") == 274877906944.0);
  CHECK(item(rs, "flops") == attention_flops(*in.attention).attention.in(flop));
  CHECK(item(rs, "bytes") == 134217728.0);
  CHECK(item(rs, "intensity") == 2048.0);
  // GQA with D_kv = 1024: K and V shrink, Q = 4096·(2·4096 + 2·1024)·2 = 83,886,080 B;
  // I = 274,877,906,944 / 83,886,080 = 3276.8.
  in.attention->d_kv = 1024.0 * one;
  CHECK(roofline(in).intensity.in(flop_per_byte) == Approx(3276.8).epsilon(1e-15));
  // Skipping the masked half halves the FLOP, not the bytes: 1638.4.
  in.attention->causal_skip = true;
  CHECK(roofline(in).intensity.in(flop_per_byte) == Approx(1638.4).epsilon(1e-15));
}

TEST_CASE("a matrix op refuses inputs that would change nothing", "[roofline]") {
  RooflineInput in = a100(Dtype::fp16);
  in.matmul = BatchedMatmul{1.0 * one, 8.0 * one, 8.0 * one, 8.0 * one};
  RooflineInput with_flops = in;
  with_flops.flops = 1e9 * flop;
  CHECK_THROWS_WITH(roofline(with_flops), "flops: '1000000000': expected no --flops with --op matmul (its shapes "
                                          "give the FLOP)");
  RooflineInput with_elements = in;
  with_elements.elements = 4.0 * one;
  CHECK_THROWS_AS(roofline(with_elements), InputError);
  RooflineInput two = in;
  two.op = find_elementwise_op("relu");
  CHECK_THROWS_WITH(roofline(two), "intensity: '(several)': expected exactly one of --intensity, --flops with "
                                   "--bytes, or --op");
  RooflineInput ffn = a100(Dtype::fp16);
  ffn.ffn = FfnInput{.d = 8.0 * one, .f = 8.0 * one, .layers = 2.0 * one};
  CHECK_THROWS_WITH(roofline(ffn), "layers: '2': expected one FFN block in a roofline (one kernel; L blocks take L "
                                   "times its time)");
  RooflineInput att = a100(Dtype::fp16);
  att.attention = AttentionInput{.batch = 1.0 * one, .seq = 8.0 * one, .d = 8.0 * one, .layers = 2.0 * one};
  CHECK_THROWS_AS(roofline(att), InputError);
}

TEST_CASE("a roofline flag that belongs to another op is refused by name", "[roofline][cli]") {
  const std::string hw = "roofline --peak 100TFLOP/s --bandwidth 1TB/s ";
  const std::pair<const char*, const char*> cases[] = {
      {"--op relu --elements 1M --m 4", "napkin: error: --m: '4': expected --op matmul with it (--op relu has no --m)\n"},
      {"--op matmul --m 8 --k 8 --n 8 --dtype fp16 --elements 1M",
       "napkin: error: --elements: '1M': expected no --elements with --op matmul (its shapes give the FLOP and the "
       "bytes)\n"},
      {"--op matmul --m 8 --k 8 --n 8 --dtype fp16 --seq 4",
       "napkin: error: --seq: '4': expected --op ffn or attention with it (--op matmul has no --seq)\n"},
      {"--op ffn --d 8 --f 8 --dtype fp16 --causal-skip",
       "napkin: error: --causal-skip: expected --op attention with it (--op ffn has no --causal-skip)\n"},
      {"--intensity 10 --gated", "napkin: error: --gated: expected --op ffn with it\n"},
      {"--op matmul --m 8 --k 8 --n 8", "napkin: error: --dtype: '(missing)': expected an element type with --op "
                                        "matmul, such as fp16 or bf16\n"},
      {"--op attention --batch 1 --d 8 --dtype fp16",
       "napkin: error: --seq: '(missing)': expected a size with --op attention\n"},
      {"--op ffn --d 8 --f 8 --dtype fp16 --tokens 4 --batch 2 --seq 2",
       "napkin: error: --tokens: '4': expected either --tokens or --batch with --seq, not both (tokens = B·T)\n"},
  };
  for (const auto& [args, msg] : cases) {
    INFO(args);
    const auto r = napkin_test::run_napkin(hw + args);
    CHECK(r.code == 2);
    CHECK(r.out == msg);
  }
}

TEST_CASE("every assumption key of the matrix ops has an entry in the flag table", "[roofline][cli]") {
  std::vector<RooflineInput> ins(5, a100(Dtype::bf16));
  ins[0].matmul = BatchedMatmul{1.0 * one, 8.0 * one, 8.0 * one, 8.0 * one};
  ins[1].matmul = BatchedMatmul{2.0 * one, 8.0 * one, 8.0 * one, 8.0 * one};
  ins[2].ffn = FfnInput{.d = 8.0 * one, .f = 8.0 * one, .gated = true};
  ins[3].ffn = FfnInput{.d = 8.0 * one, .f = 8.0 * one, .batch = 2.0 * one, .seq = 2.0 * one};
  ins[4].attention = AttentionInput{.batch = 1.0 * one, .seq = 8.0 * one, .d = 8.0 * one, .d_kv = 4.0 * one,
                                    .causal_skip = true};
  for (const RooflineInput& in : ins) {
    ResultSet rs;
    roofline(in, rs);
    for (const auto& a : rs.assumptions) {
      INFO(a.key);
      CHECK_NOTHROW(cli::flag_for_assumption(a.key));
    }
  }
  ResultSet ffn;
  ffn_flops(FfnInput{.d = 8.0 * one, .f = 8.0 * one, .layers = 2.0 * one, .batch = 2.0 * one, .seq = 2.0 * one},
            ffn);
  for (const auto& a : ffn.assumptions) {
    INFO(a.key);
    CHECK_NOTHROW(cli::flag_for_assumption(a.key));
  }
}

// ---- flops ffn --layers, --batch --seq ----------------------------------------------------------

TEST_CASE("flops ffn multiplies by --layers and takes B·T tokens from --batch and --seq", "[flops][ffn]") {
  // 6·4096·14336 = 352,321,536 FLOP/token; 4·2048 = 8192 tokens; 32 layers:
  // 352,321,536·8192·32 = 92,358,976,733,184 FLOP.
  const FfnInput in{.d = 4096.0 * one, .f = 14336.0 * one, .gated = true, .layers = 32.0 * one,
                    .batch = 4.0 * one, .seq = 2048.0 * one};
  CHECK(ffn_tokens(in).in(token) == 8192.0);
  CHECK(ffn_flops(in).in(flop) == 92358976733184.0);
  ResultSet rs;
  ffn_flops(in, rs);
  CHECK(item(rs, "flops_per_token") == 352321536.0);  // one block: the layers multiply the total only
  CHECK(item(rs, "flops") == 92358976733184.0);
  CHECK(std::string(rs.find("flops")->symbolic) == "C = FLOP/token · B · T · L");
  // The same count from --tokens 8192.
  CHECK(ffn_flops({.d = 4096.0 * one, .f = 14336.0 * one, .gated = true, .tokens = 8192.0 * token,
                   .layers = 32.0 * one})
            .in(flop) == 92358976733184.0);
}

TEST_CASE("flops ffn refuses half of --batch/--seq and --tokens beside them", "[flops][ffn]") {
  CHECK_THROWS_WITH(ffn_flops({.d = 8.0 * one, .f = 8.0 * one, .batch = 2.0 * one}),
                    "batch: '2': expected --seq with --batch (tokens = B·T)");
  CHECK_THROWS_WITH(ffn_flops({.d = 8.0 * one, .f = 8.0 * one, .tokens = 8.0 * token, .batch = 2.0 * one,
                               .seq = 4.0 * one}),
                    "tokens: '8': expected either --tokens or --batch with --seq, not both (tokens = B·T)");
  CHECK_THROWS_WITH(ffn_flops({.d = 8.0 * one, .f = 8.0 * one, .layers = 0.5 * one}),
                    "layers: '0.5': expected a positive integer");
}

TEST_CASE("the flops ffn CLI: --layers and --batch --seq give the count, mixing them with --tokens is refused",
          "[flops][ffn][cli]") {
  auto r = napkin_test::run_napkin("flops ffn --d 4096 --f 14336 --gated --batch 4 --seq 2048 --layers 32 --csv");
  CHECK(r.code == 0);
  CHECK(r.out == "d,f,gated,tokens,batch,seq,layers,flops_per_token,flops\n"
                 "4096,14336,true,8192,4,2048,32,352321536,92358976733184\n");
  r = napkin_test::run_napkin("flops ffn --d 4096 --f 14336 --tokens 1 --batch 4 --seq 2048");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --tokens: '1': expected either --tokens or --batch with --seq, not both "
                 "(tokens = B·T)\n");
  r = napkin_test::run_napkin("flops ffn --d 4096 --f 14336 --batch 4");
  CHECK(r.code == 2);
  CHECK(r.out == "napkin: error: --batch: '4': expected --seq with --batch (tokens = B·T)\n");
}
