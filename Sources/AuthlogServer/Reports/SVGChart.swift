import Foundation

/// Inline SVG charts for the evidence page: pure functions from counts to markup, with no scripts and no
/// external resources, every text from data escaped, and counts scaled as `Double` so no Int64 overflows.
enum SVGChart {
    /// One bar of a bar chart.
    struct Bar: Sendable, Equatable {
        /// What the bar counts, such as a failure reason.
        var label: String
        /// The count.
        var value: Int64
    }

    /// One stacked series of a chart by day.
    struct Series: Sendable, Equatable {
        /// The series' name in the legend, such as a provider.
        var name: String
        /// One count per day, in the order of the chart's days.
        var values: [Int64]
    }

    /// The width of every chart's drawing space; pages scale it to their width.
    static let width = 960.0

    /// The most bars a bar chart draws; the smallest beyond are drawn as one.
    static let maximumBars = 24

    /// A horizontal bar chart: one labelled bar per item, in the order given, its count written after it.
    /// - Parameters:
    ///   - id: The `id` of the `<svg>` element.
    ///   - title: What the chart shows, for its `<title>`.
    ///   - bars: The items; past ``maximumBars`` the smallest are gathered into one "others" bar.
    ///   - color: The bars' fill.
    /// - Returns: An `<svg>` element, or one saying there is no data when no bar counts anything.
    static func horizontalBars(id: String, title: String, bars: [Bar], color: String) -> String {
        let shown = self.capped(bars)
        guard shown.contains(where: { $0.value > 0 }) else { return self.empty(id: id, title: title) }
        let labelRight = 214.0
        let left = labelRight + 12
        let right = self.width - 96
        let rowHeight = 28.0
        let barHeight = 18.0
        let top = 8.0
        let bottom = top + rowHeight * Double(shown.count)
        let ticks = SVGMarkup.ticks(upTo: Double(shown.map(\.value).max() ?? 0))
        let scale = (right - left) / (ticks.last ?? 1)
        var svg = self.open(id: id, title: title, height: bottom + 30)
        for tick in ticks {
            let x = self.number(left + tick * scale)
            svg +=
                "<line class=\"grid\" x1=\"\(x)\" y1=\"\(self.number(top))\" x2=\"\(x)\" y2=\"\(self.number(bottom))\""
            svg += " stroke=\"#DDDDDD\"/>"
            svg += "<text class=\"x-tick\" x=\"\(x)\" y=\"\(self.number(bottom + 18))\" text-anchor=\"middle\""
            svg += " fill=\"#444444\">\(SVGMarkup.compact(tick))</text>"
        }
        for (index, bar) in shown.enumerated() {
            let y = top + rowHeight * Double(index) + (rowHeight - barHeight) / 2
            let length = bar.value > 0 ? max(Double(bar.value) * scale, 1) : 0
            let label = SVGMarkup.escape(bar.label)
            let middle = self.number(y + barHeight / 2)
            svg += "<g class=\"bar-row\">"
            svg += "<text class=\"bar-label\" x=\"\(self.number(labelRight))\" y=\"\(middle)\" dy=\"0.35em\""
            svg += " text-anchor=\"end\" fill=\"#111111\">\(SVGMarkup.escape(SVGMarkup.truncated(bar.label, to: 30)))"
            svg += "</text>"
            svg +=
                "<rect class=\"bar\" x=\"\(self.number(left))\" y=\"\(self.number(y))\" width=\"\(self.number(length))\""
            svg += " height=\"\(self.number(barHeight))\" fill=\"\(color)\">"
            svg += "<title>\(label): \(SVGMarkup.count(bar.value))</title></rect>"
            svg += "<text class=\"bar-value\" x=\"\(self.number(left + length + 6))\" y=\"\(middle)\" dy=\"0.35em\""
            svg += " fill=\"#111111\">\(SVGMarkup.count(bar.value))</text>"
            svg += "</g>"
        }
        svg += "<line class=\"axis\" x1=\"\(self.number(left))\" y1=\"\(self.number(top))\" x2=\"\(self.number(left))\""
        svg += " y2=\"\(self.number(bottom))\" stroke=\"#444444\"/>"
        return svg + "</svg>"
    }

    /// A stacked bar chart with one bar per day and one color per series, a legend above it, count ticks on
    /// the left and every Nth day labelled below (as `MM-DD`, or `YYYY-MM-DD` when the days span years).
    /// - Parameters:
    ///   - id: The `id` of the `<svg>` element.
    ///   - title: What the chart shows, for its `<title>`.
    ///   - days: The labels of the days (`YYYY-MM-DD`), left to right.
    ///   - series: The series, each with one count per day; the biggest is stacked lowest, and past the
    ///     palette the smallest are gathered into one "other" series.
    ///   - unit: What the counts count, written along the count axis.
    /// - Returns: An `<svg>` element, or one saying there is no data when no day counts anything.
    static func stackedDays(id: String, title: String, days: [String], series: [Series], unit: String) -> String {
        let stacked = self.ranked(series, dayCount: days.count)
        guard !days.isEmpty, stacked.contains(where: { $0.values.contains { $0 > 0 } }) else {
            return self.empty(id: id, title: title)
        }
        let left = 72.0
        let right = self.width - 16
        let (legend, legendHeight) = self.legend(stacked.map(\.name), left: left, right: right)
        let top = legendHeight + 12
        let bottom = top + 260
        let totals = days.indices.map { day in stacked.reduce(0.0) { $0 + Double(max($1.values[day], 0)) } }
        let ticks = SVGMarkup.ticks(upTo: totals.max() ?? 0)
        let scale = (bottom - top) / (ticks.last ?? 1)
        var svg = self.open(id: id, title: title, height: bottom + 50) + legend
        for tick in ticks {
            let y = self.number(bottom - tick * scale)
            svg +=
                "<line class=\"grid\" x1=\"\(self.number(left))\" y1=\"\(y)\" x2=\"\(self.number(right))\" y2=\"\(y)\""
            svg += " stroke=\"#DDDDDD\"/>"
            svg += "<text class=\"y-tick\" x=\"\(self.number(left - 8))\" y=\"\(y)\" dy=\"0.35em\" text-anchor=\"end\""
            svg += " fill=\"#444444\">\(SVGMarkup.compact(tick))</text>"
        }
        let slot = (right - left) / Double(days.count)
        let barWidth = slot >= 4 ? min(slot * 0.72, 36) : slot * 0.9
        let gap = slot >= 6 ? " stroke=\"#FFFFFF\" stroke-width=\"0.5\"" : ""
        for (day, label) in days.enumerated() {
            let x = self.number(left + slot * Double(day) + (slot - barWidth) / 2)
            var base = 0.0
            for (index, item) in stacked.enumerated() where item.values[day] > 0 {
                let value = Double(item.values[day])
                let name = SVGMarkup.escape(item.name)
                svg += "<rect class=\"bar s\(index)\" x=\"\(x)\" y=\"\(self.number(bottom - (base + value) * scale))\""
                svg += " width=\"\(self.number(barWidth))\" height=\"\(self.number(value * scale))\""
                svg += " fill=\"\(self.color(index))\"\(gap)>"
                svg += "<title>\(SVGMarkup.escape(label)) \(name): \(SVGMarkup.count(item.values[day]))</title></rect>"
                base += value
            }
        }
        svg += self.dayLabels(days, left: left, slot: slot, bottom: bottom)
        svg +=
            "<line class=\"axis\" x1=\"\(self.number(left))\" y1=\"\(self.number(bottom))\" x2=\"\(self.number(right))\""
        svg += " y2=\"\(self.number(bottom))\" stroke=\"#444444\"/>"
        let middle = self.number((top + bottom) / 2)
        svg += "<text class=\"axis-title\" x=\"16\" y=\"\(middle)\" transform=\"rotate(-90 16 \(middle))\""
        svg += " text-anchor=\"middle\" fill=\"#444444\">\(SVGMarkup.escape(unit))</text>"
        return svg + "</svg>"
    }

    /// The day labels under a chart by day (as many as fit without overlapping, evenly spaced) and the axis
    /// title, with the year when all days share one.
    private static func dayLabels(_ days: [String], left: Double, slot: Double, bottom: Double) -> String {
        let sameYear = Set(days.map { $0.prefix(5) }).count == 1
        let labelWidth = sameYear ? 46.0 : 80.0
        let fitting = max(Int((slot * Double(days.count)) / labelWidth), 1)
        let every = max((days.count + fitting - 1) / fitting, 1)
        var svg = ""
        for (day, label) in days.enumerated() where day % every == 0 {
            let x = self.number(left + slot * (Double(day) + 0.5))
            let text = sameYear && label.count == 10 ? String(label.dropFirst(5)) : label
            svg += "<line class=\"x-tick-mark\" x1=\"\(x)\" y1=\"\(self.number(bottom))\" x2=\"\(x)\""
            svg += " y2=\"\(self.number(bottom + 4))\" stroke=\"#444444\"/>"
            svg += "<text class=\"x-label\" x=\"\(x)\" y=\"\(self.number(bottom + 18))\" text-anchor=\"middle\""
            svg += " fill=\"#444444\">\(SVGMarkup.escape(text))</text>"
        }
        let year = sameYear ? ", " + (days.first?.prefix(4) ?? "") : ""
        svg += "<text class=\"axis-title\" x=\"\(self.number(left + slot * Double(days.count) / 2))\""
        svg += " y=\"\(self.number(bottom + 42))\" text-anchor=\"middle\" fill=\"#444444\">"
        return svg + "UTC day\(SVGMarkup.escape(String(year)))</text>"
    }

    /// The legend's markup, its items flowing left to right and wrapping, and its height.
    private static func legend(_ names: [String], left: Double, right: Double) -> (String, Double) {
        var svg = "<g class=\"legend\">"
        var x = left
        var y = 8.0
        for (index, name) in names.enumerated() {
            let text = SVGMarkup.truncated(name, to: 28)
            let itemWidth = 18 + 7.6 * Double(text.count) + 24
            if x + itemWidth > right, x > left {
                x = left
                y += 20
            }
            svg += "<g class=\"legend-item\"><rect x=\"\(self.number(x))\" y=\"\(self.number(y))\" width=\"12\""
            svg += " height=\"12\" fill=\"\(self.color(index))\"/>"
            svg += "<text x=\"\(self.number(x + 18))\" y=\"\(self.number(y + 6))\" dy=\"0.35em\" fill=\"#111111\">"
            svg += "\(SVGMarkup.escape(text))<title>\(SVGMarkup.escape(name))</title></text></g>"
            x += itemWidth
        }
        return (svg + "</g>", y + 12)
    }

    /// The series biggest first, each with exactly `dayCount` values; past the palette, the rest as "other".
    private static func ranked(_ series: [Series], dayCount: Int) -> [Series] {
        let padded = series.map { item in
            Series(
                name: item.name,
                values: (0..<dayCount).map { $0 < item.values.count ? item.values[$0] : 0 }
            )
        }
        let sorted = padded.sorted {
            let lhs = $0.values.reduce(0.0) { $0 + Double($1) }
            let rhs = $1.values.reduce(0.0) { $0 + Double($1) }
            return lhs != rhs ? lhs > rhs : $0.name < $1.name
        }
        let kept = SVGMarkup.palette.count
        guard sorted.count > kept + 1 else { return sorted }
        let rest = sorted[kept...]
        let other = (0..<dayCount).map { day in SVGMarkup.saturatingSum(rest.map { $0.values[day] }) }
        return Array(sorted[..<kept]) + [Series(name: "other (\(rest.count) more)", values: other)]
    }

    /// `bars` with those past ``maximumBars`` gathered, smallest first, into one bar.
    private static func capped(_ bars: [Bar]) -> [Bar] {
        guard bars.count > self.maximumBars else { return bars }
        let ordered = bars.sorted { $0.value > $1.value }
        let rest = ordered[(self.maximumBars - 1)...]
        let others = Bar(label: "\(rest.count) others", value: SVGMarkup.saturatingSum(rest.map(\.value)))
        return Array(ordered[..<(self.maximumBars - 1)]) + [others]
    }

    /// The fill of series `index`: its palette color, or the "other" color for the gathered series.
    private static func color(_ index: Int) -> String {
        index < SVGMarkup.palette.count ? SVGMarkup.palette[index] : SVGMarkup.otherColor
    }

    /// An empty chart saying there is nothing to draw.
    private static func empty(id: String, title: String) -> String {
        self.open(id: id, title: title, height: 72)
            + "<rect x=\"0.5\" y=\"0.5\" width=\"\(self.number(self.width - 1))\" height=\"71\" fill=\"none\""
            + " stroke=\"#CCCCCC\" stroke-dasharray=\"4 4\"/>"
            + "<text class=\"no-data\" x=\"\(self.number(self.width / 2))\" y=\"36\" dy=\"0.35em\" text-anchor=\"middle\""
            + " fill=\"#555555\">\(SVGMarkup.noData)</text></svg>"
    }

    /// The opening `<svg>` tag and its `<title>`.
    private static func open(id: String, title: String, height: Double) -> String {
        let id = SVGMarkup.escape(id)
        let size = "viewBox=\"0 0 \(self.number(self.width)) \(self.number(height))\""
        return "<svg id=\"\(id)\" class=\"chart\" \(size) width=\"\(self.number(self.width))\""
            + " height=\"\(self.number(height))\" role=\"img\" aria-labelledby=\"\(id)-title\""
            + " font-family=\"'Liberation Sans', 'DejaVu Sans', Arial, Helvetica, sans-serif\" font-size=\"14\">"
            + "<title id=\"\(id)-title\">\(SVGMarkup.escape(title))</title>"
    }

    private static func number(_ value: Double) -> String { SVGMarkup.coordinate(value) }
}
