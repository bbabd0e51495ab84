#include "core/chart_reference.hpp"

#include <array>
#include <boost/numeric/odeint.hpp>

namespace cmb {

namespace {

struct ChartTerms {
  Vec q, dq, ddq;  // q, q', q''
};

void evaluate_chart(const Chart& chart, int nq, double phi, ChartTerms& out) {
  std::vector<Jet2> q(nq);
  chart(Jet2::variable(phi), q);
  out.q.resize(nq);
  out.dq.resize(nq);
  out.ddq.resize(nq);
  for (int i = 0; i < nq; ++i) {
    out.q(i) = q[i].v;
    out.dq(i) = q[i].d;
    out.ddq(i) = q[i].dd;
  }
}

}  // namespace

void chart_state(const Chart& chart, int nq, double phi, double phidot, VecRef q, VecRef v) {
  ChartTerms terms;
  evaluate_chart(chart, nq, phi, terms);
  q = terms.q;
  v = terms.dq * phidot;
}

Mat integrate_chart(const Problem& problem, const Chart& chart, double phi0, double phidot0,
                    const std::vector<double>& times, double tol) {
  using State = std::array<double, 2>;
  const int nq = problem.sizes().nq;
  ChartTerms terms;
  // M q' and M q'' from M's entries when the problem sends them: a dense M costs O(nq²) per
  // evaluation (n_four_bar at N = 1000: 45 s for a reference on 100 samples, against 0.1 s).
  const bool sparse = problem.has_sparse_evaluation();
  Mat M(sparse ? 0 : nq, sparse ? 0 : nq);
  Vec Q(nq), v(nq), M_dq(nq), M_ddq(nq);
  auto reduced = [&](const State& s, State& dsdt, double t) {
    evaluate_chart(chart, nq, s[0], terms);
    v = terms.dq * s[1];
    if (sparse) {
      ProductSink times_dq(terms.dq, M_dq);
      problem.mass_matrix_entries(t, terms.q, times_dq);
      ProductSink times_ddq(terms.ddq, M_ddq);
      problem.mass_matrix_entries(t, terms.q, times_ddq);
    } else {
      problem.mass_matrix(t, terms.q, M);
      M_dq.noalias() = M * terms.dq;
      M_ddq.noalias() = M * terms.ddq;
    }
    problem.forces(t, terms.q, v, Q);
    const double mass = terms.dq.dot(M_dq);
    const double force = terms.dq.dot(Q - M_ddq * (s[1] * s[1]));
    dsdt[0] = s[1];
    dsdt[1] = force / mass;
  };
  // integrate_times starts at its first time, and the initial state belongs to t = 0.
  std::vector<double> grid = times;
  const bool prepend_zero = grid.empty() || grid.front() != 0.0;
  if (prepend_zero) grid.insert(grid.begin(), 0.0);
  Mat out(grid.size(), 2);
  std::size_t row = 0;
  auto record = [&](const State& s, double) {
    out(row, 0) = s[0];
    out(row, 1) = s[1];
    ++row;
  };
  State s{phi0, phidot0};
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<State> stepper(tol, tol);
  odeint::integrate_times(stepper, reduced, s, grid.begin(), grid.end(), 1e-3, record);
  return prepend_zero ? Mat(out.bottomRows(times.size())) : out;
}

Mat chart_reference_outputs(const Problem& problem, const Chart& chart, double phi0, double phidot0,
                            const std::vector<double>& times, double tol) {
  const int nq = problem.sizes().nq;
  const Mat phis = integrate_chart(problem, chart, phi0, phidot0, times, tol);
  Mat out(times.size(), problem.output_names().size());
  Vec q(nq), v(nq), y(out.cols());
  for (std::size_t i = 0; i < times.size(); ++i) {
    chart_state(chart, nq, phis(i, 0), phis(i, 1), q, v);
    problem.outputs(times[i], q, v, y);
    out.row(i) = y.transpose();
  }
  return out;
}

}  // namespace cmb
