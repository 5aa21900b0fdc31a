#include "store/html_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "store/report_model.h"

namespace streamcheck::store {
namespace {

constexpr int kLabelWidth = 220;
constexpr int kSlotWidth = 170;
constexpr int kLaneHeight = 56;
constexpr int kBoxWidth = 150;
constexpr int kBoxHeight = 30;
constexpr int kTop = 30;

bool IsSyncRole(const std::string& role) {
  return role != "earlier" && role != "later" && !role.empty();
}

std::string Shorten(std::string text, size_t max) {
  if (text.size() > max) text = text.substr(0, max - 1) + "…";
  return text;
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::pair<size_t, size_t> RacingPair(const Finding& f) {
  size_t earlier = 0, later = f.accesses.empty() ? 0 : f.accesses.size() - 1;
  for (size_t i = 0; i < f.accesses.size(); ++i) {
    if (f.accesses[i].role == "earlier") earlier = i;
    if (f.accesses[i].role == "later") later = i;
  }
  return {earlier, later};
}

std::string TimelineSvg(const Finding& f) {
  const std::vector<FindingAccess>& accesses = f.accesses;
  // Lanes in order of first appearance; slots in trace order.
  std::vector<std::string> lanes;
  std::vector<size_t> lane_of(accesses.size());
  for (size_t i = 0; i < accesses.size(); ++i) {
    std::string lane = LaneName(accesses[i]);
    auto it = std::find(lanes.begin(), lanes.end(), lane);
    lane_of[i] = it - lanes.begin();
    if (it == lanes.end()) lanes.push_back(lane);
  }
  std::vector<size_t> order(accesses.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return accesses[a].trace_index < accesses[b].trace_index;
  });
  std::vector<size_t> slot_of(accesses.size());
  for (size_t s = 0; s < order.size(); ++s) slot_of[order[s]] = s;

  auto [earlier, later] = RacingPair(f);
  int width = kLabelWidth + static_cast<int>(std::max<size_t>(order.size(), 2)) * kSlotWidth + 20;
  int height = kTop + static_cast<int>(lanes.size()) * kLaneHeight + 20;
  auto box_x = [&](size_t i) { return kLabelWidth + static_cast<int>(slot_of[i]) * kSlotWidth + 10; };
  auto lane_y = [&](size_t i) { return kTop + static_cast<int>(lane_of[i]) * kLaneHeight; };

  std::string svg = fmt::format(
      "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"stream timeline\">\n"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
      "markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#333\"/></marker>"
      "</defs>\n<text x=\"{}\" y=\"18\" class=\"axis\">trace order →</text>\n",
      width, height, width, height, kLabelWidth);
  for (size_t l = 0; l < lanes.size(); ++l) {
    int y = kTop + static_cast<int>(l) * kLaneHeight;
    svg += fmt::format(
        "<g class=\"lane\" data-lane=\"{}\"><rect x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "class=\"lane-bg\"/><text x=\"8\" y=\"{}\" class=\"lane-label\">{}</text></g>\n",
        HtmlEscape(lanes[l]), y, width, kLaneHeight - 4, y + kLaneHeight / 2 + 4,
        HtmlEscape(Shorten(lanes[l], 30)));
  }
  // Edges that exist: consecutive synchronisation operations (record -> wait).
  std::vector<size_t> syncs;
  for (size_t i : order)
    if (IsSyncRole(accesses[i].role)) syncs.push_back(i);
  for (size_t k = 0; k + 1 < syncs.size(); ++k) {
    size_t a = syncs[k], b = syncs[k + 1];
    svg += fmt::format(
        "<line class=\"sync-edge\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
        "marker-end=\"url(#arrow)\"/>\n",
        box_x(a) + kBoxWidth, lane_y(a) + kBoxHeight / 2 + 6, box_x(b), lane_y(b) + kBoxHeight / 2 + 6);
  }
  // The edge that is missing between the racing operations.
  if (accesses.size() >= 2 && earlier != later) {
    svg += fmt::format(
        "<line class=\"missing-edge\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n"
        "<text class=\"missing-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">"
        "no happens-before edge</text>\n",
        box_x(earlier) + kBoxWidth / 2, lane_y(earlier) + kBoxHeight + 6,
        box_x(later) + kBoxWidth / 2, lane_y(later) + 6,
        (box_x(earlier) + box_x(later) + kBoxWidth) / 2 + 40,
        (lane_y(earlier) + lane_y(later)) / 2 + kBoxHeight + 4);
  }
  for (size_t i = 0; i < accesses.size(); ++i) {
    const FindingAccess& a = accesses[i];
    bool racing = i == earlier || i == later;
    std::string label = a.op.empty() ? a.api : a.op;
    svg += fmt::format(
        "<g class=\"op{}\" data-role=\"{}\"><title>{}</title>"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text><text class=\"mode\" x=\"{}\" y=\"{}\">{} #{}</text></g>\n",
        racing ? " racing" : (IsSyncRole(a.role) ? " sync" : ""), HtmlEscape(a.role),
        HtmlEscape(DescribeAccess(a)), box_x(i), lane_y(i) + 6, kBoxWidth, kBoxHeight,
        box_x(i) + 6, lane_y(i) + 19, HtmlEscape(Shorten(label, 22)), box_x(i) + 6, lane_y(i) + 32,
        HtmlEscape(a.role.empty() ? std::string(AccessModeName(a.mode))
                                  : a.role + " " + std::string(AccessModeName(a.mode))),
        a.trace_index);
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace streamcheck::store
