// The stage engine of cmbench's own explicit Runge–Kutta steppers (dop853, dopri87): the stages
// of one step of an S-stage tableau, the propagated solution and the weighted sums of the stages
// an error estimate needs. Each sum is one loop over the components with its terms unrolled at
// compile time (as odeint's generic Runge–Kutta algorithm does); nothing is allocated after the
// first step. The first stage (the derivative at the step's
// start) is kept until the state moves, so a rejected step's retry does not evaluate it again.
#pragma once

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace cmb::detail {

template <int S>
struct ButcherTableau {
  using Row = std::array<double, S>;
  Row c{};                 // nodes
  std::array<Row, S> a{};  // a[i][j], j < i
  Row b{};                 // weights of the solution the stepper propagates
};

template <int S>
class RkStages {
 public:
  using State = std::vector<double>;
  using Row = typename ButcherTableau<S>::Row;

  explicit RkStages(const ButcherTableau<S>& tableau) : tab_(tableau) {}

  // The state moved (an accepted step, or a method's projection): the first stage is stale.
  void forget_first_stage() { have_first_stage_ = false; }

  // Accepts the last compute(): x becomes its solution (x's old storage is reused next time).
  void advance(State& x) {
    x.swap(x_new_);
    have_first_stage_ = false;
  }

  // The stages of a step of size h from (t, x), the solution x_new() and its slope Σ b_j k_j.
  template <class System>
  void compute(System& system, const State& x, double t, double h) {
    resize(x.size());
    if (!have_first_stage_) {
      Span k0{mutable_stage(0), n_};
      system(x, k0, t);
      have_first_stage_ = true;
    }
    later_stages(system, x, t, h, std::make_index_sequence<S - 1>());
    sum_stages(tab_.b, slope_.data(), std::make_index_sequence<S>());
    for (std::size_t i = 0; i < n_; ++i) x_new_[i] = x[i] + h * slope_[i];
  }

  // Σ_j w_j k_j over the stages of the last compute(), for every component (error estimates).
  const State& combination(const Row& w) {
    sum_stages(w, combination_.data(), std::make_index_sequence<S>());
    return combination_;
  }

  const double* stage(int s) const { return k_.data() + static_cast<std::size_t>(s) * n_; }
  const State& slope() const { return slope_; }
  const State& x_new() const { return x_new_; }

 private:
  // A stage derivative as the system sees it: a view of one row of k_.
  struct Span {
    double* data;
    std::size_t n;
    double& operator[](std::size_t i) const { return data[i]; }
    std::size_t size() const { return n; }
  };

  double* mutable_stage(int s) { return k_.data() + static_cast<std::size_t>(s) * n_; }

  void resize(std::size_t n) {
    if (n_ == n && !k_.empty()) return;
    n_ = n;
    k_.assign(S * n, 0.0);
    x_new_.assign(n, 0.0);
    x_stage_.assign(n, 0.0);
    slope_.assign(n, 0.0);
    combination_.assign(n, 0.0);
    have_first_stage_ = false;
  }

  // Stages 1 … S − 1, each with its sum unrolled at compile time (Stage + 1 terms).
  template <class System, std::size_t... Stage>
  void later_stages(System& system, const State& x, double t, double h,
                    std::index_sequence<Stage...>) {
    (one_stage<Stage + 1>(system, x, t, h), ...);
  }
  template <int s, class System>
  void one_stage(System& system, const State& x, double t, double h) {
    sum_stages(tab_.a[s], x_stage_.data(), std::make_index_sequence<s>());
    for (std::size_t i = 0; i < n_; ++i) x_stage_[i] = x[i] + h * x_stage_[i];
    Span ks{mutable_stage(s), n_};
    system(x_stage_, ks, t + tab_.c[s] * h);
  }

  // out_i = Σ_{j ∈ J} w_j k_j,i, one pass over i with the terms summed in the order of j.
  template <std::size_t... J>
  void sum_stages(const Row& w, double* __restrict out, std::index_sequence<J...>) const {
    const double* __restrict k[] = {stage(J)...};
    for (std::size_t i = 0; i < n_; ++i) out[i] = (... + (w[J] * k[J][i]));
  }

  const ButcherTableau<S>& tab_;
  bool have_first_stage_ = false;
  std::size_t n_ = 0;
  std::vector<double> k_;  // the stage derivatives, stage s at [s·n, (s + 1)·n)
  State x_new_, x_stage_, slope_, combination_;
};

}  // namespace cmb::detail
