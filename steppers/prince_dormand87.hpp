// The Butcher tableau of Prince and Dormand's embedded Runge–Kutta pair RK8(7)13M
// [PrinceDormand1981]: 13 stages, an 8th-order solution (weights kB, the one the `dopri87` stepper
// propagates) and a 7th-order one (kBHat) whose difference estimates the local error.
//
// The values are the rational numbers of GSL's rk8pd stepper, which cites the paper. Those with
// long numerators and denominators (c9, c11 and many a_ij, b_i, b̂_i) are approximations: the
// conditions below hold to about 1e-17 rather than exactly, far below double precision. Checked
// in exact rational arithmetic when the table was written: each row of a sums to its c_i within
// 1.1e-17, and b (b̂) satisfies all 200 (85) order conditions of the rooted trees up to order 8
// (7), each residual under 7e-18; b̂ misses order 8 by 1e-4, b misses order 9 by 8e-6.
// tests/test_steppers.cpp repeats the row sums and the quadrature conditions in double.
#pragma once

#include <array>

#include "steppers/explicit_rk.hpp"

namespace cmb::detail::prince_dormand87 {

// Nodes c_1 … c_13.
inline constexpr std::array<double, 13> kC = {0.0,
                                              1.0 / 18.0,
                                              1.0 / 12.0,
                                              1.0 / 8.0,
                                              5.0 / 16.0,
                                              3.0 / 8.0,
                                              59.0 / 400.0,
                                              93.0 / 200.0,
                                              5490023248.0 / 9719169821.0,
                                              13.0 / 20.0,
                                              1201146811.0 / 1299019798.0,
                                              1.0,
                                              1.0};

// Row kA<i> holds a_{i,1} … a_{i,i-1}, the coefficients of stage i (stage 1 has none).
inline constexpr std::array<double, 1> kA2 = {1.0 / 18.0};
inline constexpr std::array<double, 2> kA3 = {1.0 / 48.0, 1.0 / 16.0};
inline constexpr std::array<double, 3> kA4 = {1.0 / 32.0, 0.0, 3.0 / 32.0};
inline constexpr std::array<double, 4> kA5 = {5.0 / 16.0, 0.0, -75.0 / 64.0, 75.0 / 64.0};
inline constexpr std::array<double, 5> kA6 = {3.0 / 80.0, 0.0, 0.0, 3.0 / 16.0, 3.0 / 20.0};
inline constexpr std::array<double, 6> kA7 = {
    29443841.0 / 614563906.0, 0.0, 0.0, 77736538.0 / 692538347.0, -28693883.0 / 1125000000.0,
    23124283.0 / 1800000000.0};
inline constexpr std::array<double, 7> kA8 = {16016141.0 / 946692911.0,
                                              0.0,
                                              0.0,
                                              61564180.0 / 158732637.0,
                                              22789713.0 / 633445777.0,
                                              545815736.0 / 2771057229.0,
                                              -180193667.0 / 1043307555.0};
inline constexpr std::array<double, 8> kA9 = {39632708.0 / 573591083.0,
                                              0.0,
                                              0.0,
                                              -433636366.0 / 683701615.0,
                                              -421739975.0 / 2616292301.0,
                                              100302831.0 / 723423059.0,
                                              790204164.0 / 839813087.0,
                                              800635310.0 / 3783071287.0};
inline constexpr std::array<double, 9> kA10 = {246121993.0 / 1340847787.0,
                                               0.0,
                                               0.0,
                                               -37695042795.0 / 15268766246.0,
                                               -309121744.0 / 1061227803.0,
                                               -12992083.0 / 490766935.0,
                                               6005943493.0 / 2108947869.0,
                                               393006217.0 / 1396673457.0,
                                               123872331.0 / 1001029789.0};
inline constexpr std::array<double, 10> kA11 = {-1028468189.0 / 846180014.0,
                                                0.0,
                                                0.0,
                                                8478235783.0 / 508512852.0,
                                                1311729495.0 / 1432422823.0,
                                                -10304129995.0 / 1701304382.0,
                                                -48777925059.0 / 3047939560.0,
                                                15336726248.0 / 1032824649.0,
                                                -45442868181.0 / 3398467696.0,
                                                3065993473.0 / 597172653.0};
inline constexpr std::array<double, 11> kA12 = {185892177.0 / 718116043.0,
                                                0.0,
                                                0.0,
                                                -3185094517.0 / 667107341.0,
                                                -477755414.0 / 1098053517.0,
                                                -703635378.0 / 230739211.0,
                                                5731566787.0 / 1027545527.0,
                                                5232866602.0 / 850066563.0,
                                                -4093664535.0 / 808688257.0,
                                                3962137247.0 / 1805957418.0,
                                                65686358.0 / 487910083.0};
inline constexpr std::array<double, 12> kA13 = {403863854.0 / 491063109.0,
                                                0.0,
                                                0.0,
                                                -5068492393.0 / 434740067.0,
                                                -411421997.0 / 543043805.0,
                                                652783627.0 / 914296604.0,
                                                11173962825.0 / 925320556.0,
                                                -13158990841.0 / 6184727034.0,
                                                3936647629.0 / 1978049680.0,
                                                -160528059.0 / 685178525.0,
                                                248638103.0 / 1413531060.0,
                                                0.0};

// Weights of the 8th-order solution.
inline constexpr std::array<double, 13> kB = {14005451.0 / 335480064.0,
                                              0.0,
                                              0.0,
                                              0.0,
                                              0.0,
                                              -59238493.0 / 1068277825.0,
                                              181606767.0 / 758867731.0,
                                              561292985.0 / 797845732.0,
                                              -1041891430.0 / 1371343529.0,
                                              760417239.0 / 1151165299.0,
                                              118820643.0 / 751138087.0,
                                              -528747749.0 / 2220607170.0,
                                              1.0 / 4.0};

// Weights of the 7th-order solution (stage 13 does not enter it).
inline constexpr std::array<double, 13> kBHat = {13451932.0 / 455176623.0,
                                                 0.0,
                                                 0.0,
                                                 0.0,
                                                 0.0,
                                                 -808719846.0 / 976000145.0,
                                                 1757004468.0 / 5645159321.0,
                                                 656045339.0 / 265891186.0,
                                                 -3867574721.0 / 1518517206.0,
                                                 465885868.0 / 322736535.0,
                                                 53011238.0 / 667516719.0,
                                                 2.0 / 45.0,
                                                 0.0};

inline constexpr int kStages = 13;

// The pair in the stage engine's layout (steppers/explicit_rk.hpp), with kB − kBHat, the weights
// of the error estimate.
struct Pair {
  ButcherTableau<kStages> tableau;
  std::array<double, kStages> error_weights;
};
inline Pair pair_for_the_stage_engine() {
  Pair p;
  p.tableau.c = kC;
  p.tableau.b = kB;
  const auto set_row = [&](int i, const auto& row) {
    for (std::size_t j = 0; j < row.size(); ++j) p.tableau.a[i][j] = row[j];
  };
  set_row(1, kA2), set_row(2, kA3), set_row(3, kA4), set_row(4, kA5), set_row(5, kA6);
  set_row(6, kA7), set_row(7, kA8), set_row(8, kA9), set_row(9, kA10), set_row(10, kA11);
  set_row(11, kA12), set_row(12, kA13);
  for (int i = 0; i < kStages; ++i) p.error_weights[i] = kB[i] - kBHat[i];
  return p;
}
inline const Pair kPair = pair_for_the_stage_engine();

}  // namespace cmb::detail::prince_dormand87
