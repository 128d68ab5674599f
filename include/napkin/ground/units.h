// Quantities whose dimension is part of the type.
//
// Every physical amount napkin computes is a Quantity<Dim<...>>: a double in the base unit of
// its dimension plus, in the type, the exponents of napkin's eight base dimensions:
//   FLOP, byte (B), second (s), joule (J), token, param, US dollar (USD), kg CO2-equivalent.
// Adding quantities of different dimensions does not compile; multiplying or dividing them
// gives the product dimension (FLOP / (FLOP/s) is seconds). Counts of different things
// (FLOP, parameters, tokens) are different dimensions and do not mix.
//
// A number goes in by multiplying a unit (`16e9 * byte`, `989.0 * TFLOP_per_s`) and comes
// out by naming one (`w.in(GiB)`); there is no constructor from a bare double.
// Integers below 2^53 stay exact in the double, which covers every parameter and byte count
// of real models; FLOP counts up to ~1e308 do not overflow.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <type_traits>

namespace napkin {

inline constexpr int kBaseDims = 8;

/// Exponents of the base dimensions, in the order FLOP, B, s, J, token, param, USD, kgCO2e.
template <int Flop, int Byte, int Sec, int Joule, int Tok, int Par, int Usd = 0, int Co2 = 0>
struct Dim {
  static constexpr std::array<int, kBaseDims> exps{Flop, Byte, Sec, Joule, Tok, Par, Usd, Co2};
};

template <class A, class B>
using DimMul = Dim<A::exps[0] + B::exps[0], A::exps[1] + B::exps[1], A::exps[2] + B::exps[2],
                   A::exps[3] + B::exps[3], A::exps[4] + B::exps[4], A::exps[5] + B::exps[5],
                   A::exps[6] + B::exps[6], A::exps[7] + B::exps[7]>;
template <class A, class B>
using DimDiv = Dim<A::exps[0] - B::exps[0], A::exps[1] - B::exps[1], A::exps[2] - B::exps[2],
                   A::exps[3] - B::exps[3], A::exps[4] - B::exps[4], A::exps[5] - B::exps[5],
                   A::exps[6] - B::exps[6], A::exps[7] - B::exps[7]>;

/// A dimension known at run time (for parsing, rendering and JSON units).
struct DimRt {
  std::array<std::int8_t, kBaseDims> e{};
  constexpr bool operator==(const DimRt&) const = default;
  constexpr bool dimensionless() const {
    for (auto x : e)
      if (x != 0) return false;
    return true;
  }
};

template <class D>
constexpr DimRt dim_rt() {
  DimRt r;
  for (int i = 0; i < kBaseDims; ++i) r.e[static_cast<std::size_t>(i)] = static_cast<std::int8_t>(D::exps[static_cast<std::size_t>(i)]);
  return r;
}

template <class D>
class Quantity {
 public:
  using dim = D;
  constexpr Quantity() = default;
  static constexpr Quantity base_unit() { return Quantity(1.0); }
  /// Only for boundaries that already hold a base-unit number (parsed flags, JSON readers).
  static constexpr Quantity from_base(double v) { return Quantity(v); }

  /// The value in the given unit: `w.in(GiB)`.
  constexpr double in(Quantity unit) const { return base_ / unit.base_; }
  /// The value in the base unit (B, FLOP, s, J, ...): for writers of machine output.
  constexpr double in_base_units() const { return base_; }

  constexpr auto operator<=>(const Quantity&) const = default;

  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.base_ + b.base_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.base_ - b.base_); }
  friend constexpr Quantity operator-(Quantity a) { return Quantity(-a.base_); }
  constexpr Quantity& operator+=(Quantity o) { base_ += o.base_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { base_ -= o.base_; return *this; }
  friend constexpr Quantity operator*(double k, Quantity q) { return Quantity(k * q.base_); }
  friend constexpr Quantity operator*(Quantity q, double k) { return Quantity(q.base_ * k); }
  friend constexpr Quantity operator/(Quantity q, double k) { return Quantity(q.base_ / k); }
  /// Same-dimension ratio is a plain number.
  friend constexpr double operator/(Quantity a, Quantity b) { return a.base_ / b.base_; }

  template <class D2>
  friend constexpr auto operator*(Quantity a, Quantity<D2> b) {
    return Quantity<DimMul<D, D2>>::from_base(a.base_ * b.in_base_units());
  }
  template <class D2>
    requires(!std::is_same_v<D, D2>)
  friend constexpr auto operator/(Quantity a, Quantity<D2> b) {
    return Quantity<DimDiv<D, D2>>::from_base(a.base_ / b.in_base_units());
  }
  /// 1 / q.
  friend constexpr auto operator/(double k, Quantity q) {
    return Quantity<DimDiv<Dim<0, 0, 0, 0, 0, 0>, D>>::from_base(k / q.base_);
  }

 private:
  explicit constexpr Quantity(double base) : base_(base) {}
  double base_ = 0.0;  // always in base units
};

template <class>
inline constexpr bool is_quantity_v = false;
template <class D>
inline constexpr bool is_quantity_v<Quantity<D>> = true;

using Flops = Quantity<Dim<1, 0, 0, 0, 0, 0>>;          // FLOP (a count)
using FlopRate = Quantity<Dim<1, 0, -1, 0, 0, 0>>;      // FLOP/s
using Bytes = Quantity<Dim<0, 1, 0, 0, 0, 0>>;          // B
using Bandwidth = Quantity<Dim<0, 1, -1, 0, 0, 0>>;     // B/s
using Intensity = Quantity<Dim<1, -1, 0, 0, 0, 0>>;     // FLOP/B
using Seconds = Quantity<Dim<0, 0, 1, 0, 0, 0>>;        // s
using Joules = Quantity<Dim<0, 0, 0, 1, 0, 0>>;         // J
using Watts = Quantity<Dim<0, 0, -1, 1, 0, 0>>;         // J/s
using Tokens = Quantity<Dim<0, 0, 0, 0, 1, 0>>;         // tokens
using Params = Quantity<Dim<0, 0, 0, 0, 0, 1>>;         // parameters
using Usd = Quantity<Dim<0, 0, 0, 0, 0, 0, 1, 0>>;      // US dollars
using Co2 = Quantity<Dim<0, 0, 0, 0, 0, 0, 0, 1>>;      // kg CO2-equivalent
using Count = Quantity<Dim<0, 0, 0, 0, 0, 0>>;          // a plain count (rows, blocks, GPUs)
using EnergyPerFlop = Quantity<Dim<-1, 0, 0, 1, 0, 0>>;  // J/FLOP
using UsdPerJoule = Quantity<Dim<0, 0, 0, -1, 0, 0, 1, 0>>;  // price of energy
using Co2PerJoule = Quantity<Dim<0, 0, 0, -1, 0, 0, 0, 1>>;  // carbon intensity
using UsdPerSecond = Quantity<Dim<0, 0, -1, 0, 0, 0, 1, 0>>;  // a rental price (per GPU)
using FlopPerParamToken = Quantity<Dim<1, 0, 0, 0, -1, -1>>;
using BytesPerParam = Quantity<Dim<0, 1, 0, 0, 0, -1>>;

namespace units {
inline constexpr Count one = Count::base_unit();
inline constexpr Flops flop = Flops::base_unit();
inline constexpr Flops GFLOP = 1e9 * flop;
inline constexpr Flops TFLOP = 1e12 * flop;
inline constexpr Flops PFLOP = 1e15 * flop;
inline constexpr Flops EFLOP = 1e18 * flop;
inline constexpr Bytes byte = Bytes::base_unit();
inline constexpr Bytes kB = 1e3 * byte;
inline constexpr Bytes MB = 1e6 * byte;
inline constexpr Bytes GB = 1e9 * byte;
inline constexpr Bytes TB = 1e12 * byte;
inline constexpr Bytes KiB = 1024.0 * byte;
inline constexpr Bytes MiB = 1048576.0 * byte;
inline constexpr Bytes GiB = 1073741824.0 * byte;
inline constexpr Bytes TiB = 1099511627776.0 * byte;
inline constexpr Seconds second = Seconds::base_unit();
inline constexpr Seconds ms = 1e-3 * second;
inline constexpr Seconds us = 1e-6 * second;
inline constexpr Seconds minute = 60.0 * second;
inline constexpr Seconds hour = 3600.0 * second;
inline constexpr Seconds day = 86400.0 * second;
inline constexpr Joules joule = Joules::base_unit();
inline constexpr Joules MJ = 1e6 * joule;
inline constexpr Watts watt = joule / second;
inline constexpr Watts kW = 1e3 * watt;
inline constexpr Joules kWh = kW * hour;
inline constexpr FlopRate flop_per_s = flop / second;
inline constexpr FlopRate TFLOP_per_s = 1e12 * flop_per_s;
inline constexpr FlopRate PFLOP_per_s = 1e15 * flop_per_s;
inline constexpr Bandwidth byte_per_s = byte / second;
inline constexpr Bandwidth GB_per_s = 1e9 * byte_per_s;
inline constexpr Bandwidth TB_per_s = 1e12 * byte_per_s;
inline constexpr Intensity flop_per_byte = flop / byte;
inline constexpr Tokens token = Tokens::base_unit();
inline constexpr Params param = Params::base_unit();
inline constexpr Usd usd = Usd::base_unit();
inline constexpr Co2 kg_co2e = Co2::base_unit();
}  // namespace units

}  // namespace napkin
