#include "report/html_timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>
#include <vector>

#include "report/finding_words.h"
#include "report/object_names.h"
#include "report/report_model.h"

namespace streamcheck::report {
namespace {

// The drawing is laid out for a viewBox as wide as a card's content at
// 1280 px and scaled to the card's width (CSS width: 100%), so its text reads
// at about the page's size.
constexpr int kWidth = 1100;
constexpr int kLabelWidth = 250;  // lane names
constexpr int kTop = 34;           // the axis line
constexpr int kLaneHeight = 78;
constexpr int kBoxHeight = 46;
constexpr int kMaxBoxWidth = 320;
constexpr int kRightMargin = 16;
// Average glyph widths of the page's sans-serif at these sizes, generous, so
// a label shortened to fit does fit.
constexpr double kNameChar = 8.0;   // 14px bold
constexpr double kSmallChar = 6.9;  // 12px
constexpr double kLabelChar = 7.4;  // 12px semibold

// `text` shortened with an ellipsis to fit `pixels` at `char_width`.
std::string Fit(const std::string& text, int pixels, double char_width) {
  const size_t max_chars = static_cast<size_t>(std::max(4.0, pixels / char_width));
  // Count code points, not bytes: names may be UTF-8.
  size_t chars = 0, cut = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;
    if (++chars == max_chars) cut = i;
  }
  if (chars <= max_chars) return text;
  return text.substr(0, cut) + "…";
}

// A lane's name on two lines: what the stream is, then where it came from
// or which one it is ("per-thread default stream" / "of thread 2").
std::pair<std::string, std::string> SplitLaneName(const std::string& name) {
  std::string primary = StreamWithoutOrigin(name);
  for (const char* part : {" of thread ", " of device ", " launched on ", " (0x"}) {
    const size_t at = primary.find(part);
    if (at != std::string::npos) primary = primary.substr(0, at);
  }
  std::string rest = name.substr(primary.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '(')) rest.erase(0, 1);
  if (!rest.empty() && rest.back() == ')' && rest.find('(') == std::string::npos) rest.pop_back();
  return {primary, rest};
}

struct Item {
  const FindingAccess* access;
  std::string lane;  // lane name
  bool racing;
  bool sync;
};

// The box's second line: what it did and where in the program.
std::string Detail(const Item& item) {
  const FindingAccess& a = *item.access;
  const std::string at = ShortLocation(ProgramFrame(a.stack));
  std::string what = WordsFor(a.mode).present;
  if (item.sync) {
    const std::string event = a.event ? StreamWithoutOrigin(EventName(a)) : "the event";
    if (a.role == "event record") what = "records " + event;
    else if (a.role == "stream wait") what = "waits for " + event;
    else if (a.on_host && !a.stream_kind.empty()) what = "waits for " + StreamWithoutOrigin(StreamName(a));
    else if (a.on_host && a.event) what = "waits for " + event;
    else what = a.role;
  }
  return at.empty() ? what : what + " · " + at;
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

namespace {

// Where everything of one finding's timeline goes: its operations in trace
// order left to right, one lane per stream or host thread in order of first
// appearance, and the geometry of their boxes.
struct TimelineLayout {
  std::vector<Item> items;
  size_t earlier = 0, later = 0;  // the racing pair, indices into items
  std::vector<std::string> lanes;
  std::vector<const FindingAccess*> lane_access;  // one access per lane, for its detail
  std::vector<size_t> lane_of, slot_of;           // per item
  int slot_width = 0, box_width = 0, height = 0;

  int box_x(size_t i) const { return kLabelWidth + static_cast<int>(slot_of[i]) * slot_width + 14; }
  int lane_top(size_t lane) const { return kTop + static_cast<int>(lane) * kLaneHeight; }
  int box_y(size_t i) const { return lane_top(lane_of[i]) + (kLaneHeight - kBoxHeight) / 2; }
};

TimelineLayout LayOut(const Finding& f) {
  TimelineLayout t;
  const LaneNames names = NameLanes(f);
  std::tie(t.earlier, t.later) = RacingPair(f);
  for (size_t i = 0; i < f.accesses.size(); ++i) {
    const bool racing = f.accesses.size() >= 2 && (i == t.earlier || i == t.later);
    t.items.push_back({&f.accesses[i], names.accesses[i], racing, IsSyncRole(f.accesses[i].role)});
  }
  for (size_t i = 0; i < f.syncs.size(); ++i) t.items.push_back({&f.syncs[i], names.syncs[i], false, true});
  std::vector<size_t> order(t.items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return t.items[a].access->trace_index < t.items[b].access->trace_index;
  });
  t.lane_of.resize(t.items.size());
  t.slot_of.resize(t.items.size());
  for (size_t s = 0; s < order.size(); ++s) {
    const size_t i = order[s];
    t.slot_of[i] = s;
    auto it = std::find(t.lanes.begin(), t.lanes.end(), t.items[i].lane);
    t.lane_of[i] = static_cast<size_t>(it - t.lanes.begin());
    if (it == t.lanes.end()) {
      t.lanes.push_back(t.items[i].lane);
      t.lane_access.push_back(t.items[i].access);
    }
  }
  // A stream a host wait waited for gets its lane even without a box on it:
  // the arrow from it shows which stream the host did wait for.
  for (const Item& item : t.items) {
    if (!item.sync || !item.access->on_host || item.access->stream_kind.empty()) continue;
    const std::string target = StreamName(*item.access);
    if (std::find(t.lanes.begin(), t.lanes.end(), target) == t.lanes.end()) {
      t.lanes.push_back(target);
      t.lane_access.push_back(item.access);
    }
  }
  const int slots = static_cast<int>(std::max<size_t>(order.size(), 2));
  t.slot_width = (kWidth - kLabelWidth - kRightMargin) / slots;
  t.box_width = std::min(kMaxBoxWidth, t.slot_width - 28);
  t.height = kTop + static_cast<int>(t.lanes.size()) * kLaneHeight + 12;
  return t;
}

std::string SvgHeader(const TimelineLayout& t) {
  return fmt::format(
      "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
      "preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"stream timeline\" data-label-width=\"{}\">\n"
      "<defs><marker id=\"arrow-ok\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
      "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#2e7d32\"/></marker>"
      "<marker id=\"arrow-missing\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
      "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#c62828\"/></marker></defs>\n"
      "<text class=\"axis\" x=\"{}\" y=\"20\">time (trace order) →</text>\n",
      kWidth, t.height, kLabelWidth, kLabelWidth + 14);
}

std::string SvgLanes(const TimelineLayout& t) {
  std::string svg;
  for (size_t l = 0; l < t.lanes.size(); ++l) {
    const int y = t.lane_top(l);
    const auto [primary, origin] = SplitLaneName(t.lanes[l]);
    svg += fmt::format(
        "<g class=\"lane\" data-lane=\"{}\"><title>{}</title>"
        "<rect class=\"lane-bg\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>"
        "<line class=\"lane-line\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
        "<text class=\"lane-label\" x=\"10\" y=\"{}\">{}</text>",
        HtmlEscape(t.lanes[l]), HtmlEscape(t.lanes[l] + " — " + StreamDetail(*t.lane_access[l])), y + 3, kWidth,
        kLaneHeight - 6, kLabelWidth, y + kLaneHeight / 2, kWidth - 6, y + kLaneHeight / 2,
        y + kLaneHeight / 2 + (origin.empty() ? 5 : -3), HtmlEscape(Fit(primary, kLabelWidth - 20, kNameChar)));
    if (!origin.empty())
      svg += fmt::format("<text class=\"lane-origin\" x=\"10\" y=\"{}\">{}</text>", y + kLaneHeight / 2 + 15,
                         HtmlEscape(Fit(origin, kLabelWidth - 20, kSmallChar)));
    svg += "</g>\n";
  }
  return svg;
}

// Edges that exist: an event record to the waits on that event, and a host
// wait from the stream it waited for.
std::string SvgSyncEdges(const TimelineLayout& t) {
  std::string svg;
  for (size_t i = 0; i < t.items.size(); ++i) {
    const FindingAccess& a = *t.items[i].access;
    if (a.role == "stream wait" || a.role == "event synchronize" || a.role == "event query") {
      for (size_t r = 0; r < t.items.size(); ++r) {
        if (t.items[r].access->role != "event record" || t.items[r].access->event != a.event) continue;
        if (t.items[r].access->trace_index > a.trace_index) continue;
        const int x1 = t.box_x(r) + t.box_width, y1 = t.box_y(r) + kBoxHeight / 2;
        const int x2 = t.box_x(i), y2 = t.box_y(i) + kBoxHeight / 2;
        svg += fmt::format(
            "<path class=\"sync-edge\" d=\"M{},{} C{},{} {},{} {},{}\" marker-end=\"url(#arrow-ok)\"/>\n", x1, y1,
            (x1 + x2) / 2, y1, (x1 + x2) / 2, y2, x2 - 2, y2);
      }
    }
    if ((a.role == "stream synchronize" || a.role == "stream query") && a.on_host) {
      auto stream_lane = std::find(t.lanes.begin(), t.lanes.end(), StreamName(a));
      if (stream_lane == t.lanes.end()) continue;
      const size_t l = static_cast<size_t>(stream_lane - t.lanes.begin());
      const int x = t.box_x(i) + t.box_width / 2;
      const int from = t.lane_top(l) + kLaneHeight / 2;
      const int to = from < t.box_y(i) ? t.box_y(i) - 2 : t.box_y(i) + kBoxHeight + 2;
      svg += fmt::format("<line class=\"sync-edge\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" "
                         "marker-end=\"url(#arrow-ok)\"/><circle class=\"sync-dot\" cx=\"{}\" cy=\"{}\" r=\"4\"/>\n",
                         x, from, x, to, x, from);
    }
  }
  return svg;
}

// The edge that is missing between the racing operations, and its label in
// the gap between the lanes, where no box is.
std::string SvgMissingEdge(const TimelineLayout& t) {
  if (t.items.size() < 2 || t.earlier == t.later) return "";
  const int x1 = t.box_x(t.earlier) + t.box_width, y1 = t.box_y(t.earlier) + kBoxHeight / 2;
  const int x2 = t.box_x(t.later), y2 = t.box_y(t.later) + kBoxHeight / 2;
  const bool same_lane = t.lane_of[t.earlier] == t.lane_of[t.later];
  const int bend = same_lane ? -40 : 0;
  std::string svg = fmt::format(
      "<path class=\"missing-edge\" d=\"M{},{} C{},{} {},{} {},{}\" marker-end=\"url(#arrow-missing)\"/>\n", x1,
      y1, (x1 + x2) / 2, y1 + bend, (x1 + x2) / 2, y2 + bend, x2 - 2, y2);
  const int label_x = (x1 + x2) / 2;
  const int label_y = same_lane ? t.box_y(t.earlier) - 10
                                : (t.lane_top(t.lane_of[t.earlier]) + t.lane_top(t.lane_of[t.later])) / 2 +
                                      kLaneHeight / 2 + 4;
  const std::string label = "missing: no happens-before edge";
  const int label_width = static_cast<int>(label.size() * kLabelChar) + 16;
  return svg + fmt::format(
                   "<g class=\"missing-label\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" rx=\"9\"/>"
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>\n",
                   label_x - label_width / 2, label_y - 13, label_width, label_x, label_y, label);
}

std::string SvgOperations(const TimelineLayout& t) {
  std::string svg;
  for (size_t i = 0; i < t.items.size(); ++i) {
    const Item& item = t.items[i];
    const FindingAccess& a = *item.access;
    const std::string cls = item.racing ? " racing" : item.sync ? " sync" : "";
    const std::string name = OperationName(a);
    std::string title = item.sync ? a.role + ": " + name : DescribeAccess(a);
    if (a.event != 0) title += " (" + EventName(a) + ")";
    svg += fmt::format(
        "<g class=\"op{}\" data-role=\"{}\"><title>{}</title>"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\"/>"
        "<text class=\"op-name\" x=\"{}\" y=\"{}\">{}</text>"
        "<text class=\"op-detail\" x=\"{}\" y=\"{}\">{}</text></g>\n",
        cls, HtmlEscape(a.role), HtmlEscape(title), t.box_x(i), t.box_y(i), t.box_width, kBoxHeight, t.box_x(i) + 10,
        t.box_y(i) + 19, HtmlEscape(Fit(name, t.box_width - 20, kNameChar)), t.box_x(i) + 10, t.box_y(i) + 36,
        HtmlEscape(Fit(Detail(item), t.box_width - 20, kSmallChar)));
  }
  return svg;
}

}  // namespace

std::string TimelineSvg(const Finding& f) {
  const TimelineLayout layout = LayOut(f);
  return SvgHeader(layout) + SvgLanes(layout) + SvgSyncEdges(layout) + SvgMissingEdge(layout) +
         SvgOperations(layout) + "</svg>\n";
}

}  // namespace streamcheck::report
