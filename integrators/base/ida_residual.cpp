#include "integrators/base/ida_residual.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cmb {

namespace {

using ConstMap = Eigen::Map<const Vec>;
using Map = Eigen::Map<Vec>;

// The products of J's entries the residual needs, in one pass over them: Jᵀλ into the dynamic
// rows, J_hᵀμ into the kinematic rows (rows below mh), and J x into the constraint rows (x = v
// for ggl, v' for index1).
class ResidualProductsSink : public SparseSink {
 public:
  ResidualProductsSink(const Vec& lambda, const Vec& mu, const Vec& x, int mh, VecRef dynamic,
                       VecRef kinematic, VecRef constraint)
      : lambda_(lambda),
        mu_(mu),
        x_(x),
        mh_(mh),
        dynamic_(dynamic),
        kinematic_(kinematic),
        constraint_(constraint) {}

 private:
  void put(int row, int col, double value) override {
    dynamic_(col) += value * lambda_(row);
    if (row < mh_) kinematic_(col) += value * mu_(row);
    constraint_(row) += value * x_(col);
  }
  const Vec &lambda_, &mu_, &x_;
  int mh_;
  VecRef dynamic_, kinematic_, constraint_;
};

}  // namespace

void IdaResidual::bind(const Problem& problem, IdaFormulation formulation, bool sparse) {
  const Sizes s = problem.sizes();
  problem_ = &problem;
  formulation_ = formulation;
  sparse_ = sparse;
  n_ = s.nq;
  m_ = s.m();
  mh_ = s.mh;
  size_ = 2 * n_ + m_ + (formulation == IdaFormulation::ggl ? mh_ : 0);
  M_.setZero(sparse ? 0 : n_, sparse ? 0 : n_);
  J_.setZero(sparse ? 0 : m_, sparse ? 0 : n_);
  Q_.setZero(n_);
  Q0_.setZero(n_);
  gamma_.setZero(m_);
  gamma0_.setZero(m_);
  nu_.setZero(m_);
  y_work_.setZero(size_);
  r_work_.setZero(size_);
  v_work_.setZero(n_);
  qdd_.setZero(n_);
  lambda_.setZero(m_);
  vp_work_.setZero(n_);
  lambda_work_.setZero(m_);
  mu_work_.setZero(mh_);
  phi_.setZero(mh_);
  if (sparse) {
    kkt_.bind(problem);
    sparse_matrix_.bind(problem, formulation);
  } else {
    schur_.bind(n_, m_);
  }
  residuals_ = partials_ = 0;
}

void IdaResidual::component_ids(double* id) const {
  Map ids(id, size_);
  ids.head(2 * n_).setOnes();
  ids.tail(size_ - 2 * n_).setZero();
}

bool IdaResidual::residual(double t, const double* y_data, const double* yp_data, double* r_data) {
  ++residuals_;
  if (sparse_) {
    sparse_residual(t, y_data, yp_data, r_data);
    return ConstMap(r_data, size_).allFinite();
  }
  const ConstMap y(y_data, size_), yp(yp_data, size_);
  Map r(r_data, size_);
  const auto q = y.head(n_);
  const auto v = y.segment(n_, n_);
  const auto vp = yp.segment(n_, n_);
  problem_->mass_matrix(t, q, M_);
  problem_->forces(t, q, v, Q_);
  problem_->jacobian(t, q, J_);
  auto kinematic = r.head(n_);
  auto dynamic = r.segment(n_, n_);
  kinematic = yp.head(n_) - v;
  dynamic.noalias() = M_ * vp;
  dynamic -= Q_;
  dynamic.noalias() += J_.transpose() * y.segment(2 * n_, m_);
  if (formulation_ == IdaFormulation::ggl) {
    kinematic.noalias() += J_.topRows(mh_).transpose() * y.tail(mh_);
    problem_->constraints(t, q, r.segment(2 * n_, mh_));
    problem_->velocity_rhs(t, q, nu_);
    auto velocity = r.tail(m_);
    velocity.noalias() = J_ * v;
    velocity -= nu_;
  } else {
    problem_->acceleration_rhs(t, q, v, gamma_);
    auto acceleration = r.tail(m_);
    acceleration.noalias() = J_ * vp;
    acceleration -= gamma_;
  }
  return r.allFinite();
}

void IdaResidual::sparse_residual(double t, const double* y_data, const double* yp_data,
                                  double* r_data) {
  const ConstMap y(y_data, size_), yp(yp_data, size_);
  Map r(r_data, size_);
  const auto q = y.head(n_);
  const bool ggl = formulation_ == IdaFormulation::ggl;
  v_work_ = y.segment(n_, n_);
  vp_work_ = yp.segment(n_, n_);
  lambda_work_ = y.segment(2 * n_, m_);
  if (ggl) mu_work_ = y.tail(mh_);
  auto kinematic = r.head(n_);
  auto dynamic = r.segment(n_, n_);
  auto constraint = r.tail(m_);  // ggl's velocity rows, index1's acceleration rows
  kinematic = yp.head(n_) - v_work_;
  {
    ProductSink mass_times_vp(vp_work_, dynamic);
    problem_->mass_matrix_entries(t, q, mass_times_vp);
  }
  problem_->forces(t, q, v_work_, Q_);
  dynamic -= Q_;
  constraint.setZero();
  ResidualProductsSink products(lambda_work_, mu_work_, ggl ? v_work_ : vp_work_, ggl ? mh_ : 0,
                                dynamic, kinematic, constraint);
  problem_->jacobian_entries(t, q, products);
  if (ggl) {
    problem_->constraints(t, q, r.segment(2 * n_, mh_));
    problem_->velocity_rhs(t, q, nu_);
    constraint -= nu_;
  } else {
    problem_->acceleration_rhs(t, q, v_work_, gamma_);
    constraint -= gamma_;
  }
}

void IdaResidual::velocity_dependent_terms(double t, CVecRef q, CVecRef v) {
  problem_->forces(t, q, v, Q_);
  if (formulation_ == IdaFormulation::index1) problem_->acceleration_rhs(t, q, v, gamma_);
  ++partials_;
}

bool IdaResidual::iteration_matrix(double t, double cj, const double* y_data, const double* yp_data,
                                   const double* r0_data, const double* ewt, double h,
                                   double* jac_data) {
  const ConstMap y(y_data, size_), yp(yp_data, size_), r0(r0_data, size_);
  Eigen::Map<Mat> jac(jac_data, size_, size_);
  jac.setZero();
  // q columns: every row depends on q (M, Q, J, Φ, ν, γ), and nothing is known of ∂/∂q.
  y_work_ = y;
  for (int j = 0; j < n_; ++j) {
    const double delta = ida_increment(y(j), yp(j), h, ewt[j]);
    y_work_(j) = y(j) + delta;
    residual(t, y_work_.data(), yp_data, r_work_.data());
    jac.col(j) = (r_work_ - r0) / delta;
    y_work_(j) = y(j);
  }
  // The residuals above left M, J, Q of perturbed positions in the workspace.
  const auto q = y.head(n_);
  const auto v = y.segment(n_, n_);
  problem_->mass_matrix(t, q, M_);
  problem_->jacobian(t, q, J_);
  velocity_dependent_terms(t, q, v);
  Q0_ = Q_;
  gamma0_ = gamma_;
  // v columns: −I in the kinematic rows; only Q (and γ) depend on v in the dynamic rows (and
  // index1's acceleration rows); J exactly in ggl's velocity rows.
  v_work_ = v;
  for (int j = 0; j < n_; ++j) {
    const int col = n_ + j;
    const double delta = ida_increment(v(j), yp(col), h, ewt[col]);
    v_work_(j) = v(j) + delta;
    velocity_dependent_terms(t, q, v_work_);
    v_work_(j) = v(j);
    jac(j, col) = -1.0;
    jac.col(col).segment(n_, n_) = (Q0_ - Q_) / delta;
    if (formulation_ == IdaFormulation::index1) jac.col(col).tail(m_) = (gamma0_ - gamma_) / delta;
  }
  if (formulation_ == IdaFormulation::ggl) {
    jac.block(2 * n_ + mh_, n_, m_, n_) = J_;
    jac.block(0, 2 * n_ + m_, n_, mh_) = J_.topRows(mh_).transpose();
  } else {
    jac.block(2 * n_, n_, m_, n_) += cj * J_;
  }
  jac.block(n_, 2 * n_, n_, m_) = J_.transpose();  // λ columns
  jac.topLeftCorner(n_, n_).diagonal().array() += cj;
  jac.block(n_, n_, n_, n_) += cj * M_;
  return jac.allFinite();
}

bool IdaResidual::consistent_start(double t, CVecRef q, CVecRef v, VecRef y, VecRef yp) {
  y.setZero();
  yp.setZero();
  y.head(n_) = q;
  y.segment(n_, n_) = v;
  yp.head(n_) = v;
  const bool solved = sparse_ ? sparse_start(t, q, v) : dense_start(t, q, v);
  if (!solved) {
    yp.segment(n_, n_).setConstant(std::numeric_limits<double>::quiet_NaN());
    y.segment(2 * n_, m_).setConstant(std::numeric_limits<double>::quiet_NaN());
    return false;
  }
  yp.segment(n_, n_) = qdd_;
  y.segment(2 * n_, m_) = lambda_;
  return true;
}

bool IdaResidual::sparse_start(double t, CVecRef q, CVecRef v) {
  problem_->forces(t, q, v, Q_);
  problem_->acceleration_rhs(t, q, v, gamma_);
  return kkt_.evaluate(t, q) && kkt_.solve(Q_, gamma_, 1e-12, qdd_, lambda_);
}

bool IdaResidual::dense_start(double t, CVecRef q, CVecRef v) {
  problem_->mass_matrix(t, q, M_);
  problem_->forces(t, q, v, Q_);
  problem_->jacobian(t, q, J_);
  problem_->acceleration_rhs(t, q, v, gamma_);
  return schur_.try_solve(M_, J_, Q_, gamma_, 1e-12, RankPolicy::fail, qdd_, lambda_) ==
         SchurOutcome::full_rank;
}

double IdaResidual::constraint_violation(double t, CVecRef y) {
  if (m_ == 0) return 0.0;
  const auto q = y.head(n_);
  v_work_ = y.segment(n_, n_);
  if (sparse_) {
    ProductSink jv(v_work_, lambda_work_);  // J v, in the multipliers' workspace
    problem_->jacobian_entries(t, q, jv);
  } else {
    problem_->jacobian(t, q, J_);
    lambda_work_.noalias() = J_ * v_work_;
  }
  problem_->velocity_rhs(t, q, nu_);
  double worst = (lambda_work_ - nu_).cwiseAbs().maxCoeff();
  if (mh_ > 0) {
    problem_->constraints(t, q, phi_);
    worst = std::max(worst, phi_.cwiseAbs().maxCoeff());
  }
  return worst;
}

}  // namespace cmb
