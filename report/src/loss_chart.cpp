// Draws the loss curve: values against steps (or log lines), a log y axis when the
// values span more than two decades, the verdict's point marked and labelled, and
// a red band from where the loss stopped being finite.
#include "gpualert/report/loss_chart.hpp"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace gpualert::report {
namespace {

cairo_status_t append_png(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

struct Frame {
  double left = 56, right = 12, top = 14, bottom = 30;
  int w = 0, h = 0;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool logy = false;
  double fy(double y) const { return logy ? std::log10(y) : y; }
  double px(double x) const { return left + (x - x0) / (x1 - x0) * (w - left - right); }
  double py(double y) const { return h - bottom - (fy(y) - y0) / (y1 - y0) * (h - top - bottom); }
};

void text(cairo_t* cr, double x, double y, const std::string& s, double align) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  cairo_move_to(cr, x - e.width * align - e.x_bearing * (1 - align), y);
  cairo_show_text(cr, s.c_str());
}

std::string axis_number(double v) {
  char buf[32];
  if (std::fabs(v) >= 1e6) std::snprintf(buf, sizeof buf, "%.0e", v);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

std::optional<Chart> draw_loss_chart(const LossSeries& s, int width, int height) {
  if (width < 120 || height < 60) return std::nullopt;
  std::unique_ptr<cairo_surface_t, decltype(&cairo_surface_destroy)> surface(
      cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height), cairo_surface_destroy);
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) return std::nullopt;
  std::unique_ptr<cairo_t, decltype(&cairo_destroy)> owner(cairo_create(surface.get()), cairo_destroy);
  cairo_t* cr = owner.get();

  Frame f;
  f.w = width;
  f.h = height;
  f.x0 = s.finite.empty() ? 0 : s.finite.front().x;
  f.x1 = s.finite.empty() ? 1 : s.finite.back().x;
  if (s.first_nonfinite) {
    f.x0 = std::min(f.x0, s.first_nonfinite->x);
    f.x1 = std::max(f.x1, s.x_end);
  }
  if (f.x1 <= f.x0) f.x1 = f.x0 + 1;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : s.finite) lo = std::min(lo, p.y), hi = std::max(hi, p.y);
  if (s.finite.empty()) lo = 0, hi = 1;
  f.logy = wants_log_scale(lo, hi);
  f.y0 = f.fy(lo);
  f.y1 = f.fy(hi);
  if (f.y1 <= f.y0) f.y1 = f.y0 + 1;
  const double pad = (f.y1 - f.y0) * 0.06;
  f.y0 = f.logy || lo < 0 ? f.y0 - pad : std::max(0.0, f.y0 - pad);  // a loss axis does not go below 0 for padding
  f.y1 += pad;

  // White paper: a picture keeps its own background in dark mode too.
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, 11);

  // Axes and their end values.
  cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
  cairo_set_line_width(cr, 1);
  cairo_move_to(cr, f.left, f.top);
  cairo_line_to(cr, f.left, height - f.bottom);
  cairo_line_to(cr, width - f.right, height - f.bottom);
  cairo_stroke(cr);
  const double shown_lo = f.logy ? std::pow(10, f.y0) : f.y0, shown_hi = f.logy ? std::pow(10, f.y1) : f.y1;
  text(cr, f.left - 4, f.top + 8, loss_value_text(shown_hi), 1);
  text(cr, f.left - 4, height - f.bottom, loss_value_text(shown_lo), 1);
  text(cr, f.left, height - 10, axis_number(f.x0), 0);
  text(cr, width - f.right, height - 10, axis_number(f.x1), 1);
  text(cr, (f.left + width - f.right) / 2, height - 10,
       std::string(s.by_step ? "step" : "log line") + (f.logy ? "   (loss on a log scale)" : ""), 0.5);

  // From the first non-finite value on: a red band, the loss is no number there.
  if (s.first_nonfinite) {
    const double x = f.px(s.first_nonfinite->x);
    cairo_set_source_rgba(cr, 0.85, 0.1, 0.1, 0.15);
    cairo_rectangle(cr, x, f.top, std::max(2.0, width - f.right - x), height - f.top - f.bottom);
    cairo_fill(cr);
  }

  // The curve.
  cairo_set_source_rgb(cr, 0.12, 0.38, 0.75);
  cairo_set_line_width(cr, 1.6);
  for (std::size_t i = 0; i < s.finite.size(); ++i) {
    const double x = f.px(s.finite[i].x), y = f.py(s.finite[i].y);
    if (i == 0) cairo_move_to(cr, x, y);
    else cairo_line_to(cr, x, y);
  }
  if (s.finite.size() == 1) cairo_arc(cr, f.px(s.finite[0].x), f.py(s.finite[0].y), 2, 0, 2 * M_PI);
  cairo_stroke(cr);

  // The verdict's point: a red ring, a dashed line down, and its label.
  if (s.mark) {
    const bool nonfinite = s.first_nonfinite && s.mark->line == s.first_nonfinite->line;
    const double x = f.px(s.mark->x), y = nonfinite ? f.top + 10 : f.py(s.mark->y);
    cairo_set_source_rgb(cr, 0.8, 0.1, 0.1);
    cairo_set_line_width(cr, 2);
    cairo_arc(cr, x, y, 5, 0, 2 * M_PI);
    cairo_stroke(cr);
    const double dash[] = {3, 3};
    cairo_set_dash(cr, dash, 2, 0);
    cairo_set_line_width(cr, 1);
    cairo_move_to(cr, x, y + 5);
    cairo_line_to(cr, x, height - f.bottom);
    cairo_stroke(cr);
    cairo_set_dash(cr, nullptr, 0, 0);
    const std::string label = s.mark_label + " (" + point_name(s, *s.mark) + ")";
    const double align = x > width * 0.6 ? 1.0 : 0.0;
    text(cr, x + (align > 0 ? -8 : 8), std::max(f.top + 12, y - 8), label, align);
  }

  cairo_surface_flush(surface.get());
  Chart c;
  c.width = width;
  c.height = height;
  if (cairo_surface_write_to_png_stream(surface.get(), append_png, &c.png) != CAIRO_STATUS_SUCCESS) return std::nullopt;
  c.alt = "Training " + s.key + " over the run: " + sparkline(s);
  if (s.mark) c.alt += "; marked: " + s.mark_label + " at " + point_name(s, *s.mark);
  return c;
}

}  // namespace gpualert::report
