#include "hiertune/report/overlap_report.hpp"
#include "hiertune/common/text.hpp"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace hiertune {

namespace {

using Json = nlohmann::json;

// 1024 -> "1K", 1536 -> "1536", 4194304 -> "4M".
std::string size_text(std::size_t bytes) {
    for (const auto& [shift, suffix] : {std::pair<int, const char*>{30, "G"}, {20, "M"}, {10, "K"}})
        if (bytes >= (std::size_t{1} << shift) && bytes % (std::size_t{1} << shift) == 0)
            return std::to_string(bytes >> shift) + suffix;
    return std::to_string(bytes);
}

// The computation time as typed: 10, 46.4, 1000.
std::string us_text(double us) {
    std::string text = fixed(us, 1);
    if (text.size() > 2 && text.compare(text.size() - 2, 2, ".0") == 0) text.resize(text.size() - 2);
    return text;
}

bool same_configuration(const OverlapSeries& a, const OverlapSeries& b) {
    return a.operation == b.operation && a.algorithm == b.algorithm && a.params == b.params;
}

const OverlapSeries* find_series(const OverlapRun& run, const OverlapSeries& wanted) {
    for (const OverlapSeries& series : run.series)
        if (same_configuration(series, wanted)) return &series;
    return nullptr;
}

// The grid of a series: sizes and computation times in ascending order.
struct Axes {
    std::vector<std::size_t> sizes;
    std::vector<double> comp_us;
};

Axes axes_of(const OverlapSeries& series) {
    Axes axes;
    for (const OverlapCell& cell : series.cells) {
        axes.sizes.push_back(cell.bytes);
        axes.comp_us.push_back(cell.comp_us);
    }
    std::sort(axes.sizes.begin(), axes.sizes.end());
    axes.sizes.erase(std::unique(axes.sizes.begin(), axes.sizes.end()), axes.sizes.end());
    std::sort(axes.comp_us.begin(), axes.comp_us.end());
    axes.comp_us.erase(std::unique(axes.comp_us.begin(), axes.comp_us.end()), axes.comp_us.end());
    return axes;
}

std::size_t index_of(const std::vector<std::size_t>& values, std::size_t value) {
    return static_cast<std::size_t>(std::lower_bound(values.begin(), values.end(), value) - values.begin());
}
std::size_t index_of(const std::vector<double>& values, double value) {
    return static_cast<std::size_t>(std::lower_bound(values.begin(), values.end(), value) - values.begin());
}

std::string verdict_text(const OverlapSummary& summary) {
    if (!summary.verdict)
        return "no verdict (no cell where t_comm and t_comp are each >= " + fixed(kSignificantShare * 100, 0) +
               "% of the other)";
    return to_string(*summary.verdict) + " (median ratio " + fixed(*summary.median_ratio, 2) + " over " +
           std::to_string(summary.significant) + " of " + std::to_string(summary.cells) + " cells)";
}

// A computation time for a tic: "63.1 us", "2.51 ms" (3 significant digits).
std::string time_tic(double us) {
    std::ostringstream text;
    text << std::setprecision(3) << (us >= 1000 ? us / 1000 : us) << (us >= 1000 ? " ms" : " us");
    return text.str();
}

// gnuplot strings in single quotes: a quote is doubled.
std::string quoted(const std::string& text) {
    std::string result = "'";
    for (char ch : text) result += ch == '\'' ? std::string("''") : std::string(1, ch);
    return result + "'";
}

}  // namespace

std::string overlap_settings_json(const OverlapSettings& settings) {
    const nlohmann::ordered_json object{{"settings",
                                         {{"ranks", settings.ranks},
                                          {"ranks_per_node", settings.ranks_per_node},
                                          {"threads", settings.threads},
                                          {"async_progress", settings.async_progress},
                                          {"thread_level", settings.thread_level},
                                          {"reps", settings.reps}}}};
    return object.dump();
}

std::string settings_label(const OverlapSettings& settings) {
    std::string label = "ASYNC_PROGRESS=" + (settings.async_progress.empty() ? "?" : settings.async_progress);
    label += ", " + std::to_string(settings.threads) + (settings.threads == 1 ? " thread" : " threads");
    label += ", " + std::to_string(settings.ranks) + " ranks (" + std::to_string(settings.ranks_per_node) +
             " per node)";
    return label;
}

std::string series_label(const OverlapSeries& series) {
    std::string label = series.operation + " (" + series.algorithm;
    for (const auto& [name, value] : series.params) label += " " + name + "=" + value;
    return label + ")";
}

OverlapRun read_overlap_run(std::istream& in, const std::string& source) {
    OverlapRun run;
    run.source = source;
    bool have_settings = false;
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
        const std::string where = source + ":" + std::to_string(number) + ": ";
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            const Json object = Json::parse(line);
            if (object.contains("settings")) {
                const Json& s = object.at("settings");
                run.settings.ranks = s.at("ranks").get<int>();
                run.settings.ranks_per_node = s.at("ranks_per_node").get<int>();
                run.settings.threads = s.at("threads").get<unsigned>();
                run.settings.async_progress = s.at("async_progress").get<std::string>();
                run.settings.thread_level = s.at("thread_level").get<std::string>();
                run.settings.reps = s.at("reps").get<std::size_t>();
                have_settings = true;
                continue;
            }
            if (object.contains("verdict")) continue;
            if (!have_settings) throw std::runtime_error("a cell before the settings object");
            OverlapSeries key{object.at("operation").get<std::string>(), object.at("algorithm").get<std::string>(),
                              object.at("params").get<Params>(), {}};
            OverlapCell cell;
            cell.bytes = object.at("size").get<std::size_t>();
            cell.comp_us = object.at("comp_us").get<double>();
            cell.t_comm_us = object.at("t_comm_us").get<double>();
            cell.t_comp_us = object.at("t_comp_us").get<double>();
            cell.t_measured_us = object.at("t_measured_us").get<double>();
            cell.ratio = object.at("ratio").get<double>();
            auto it = std::find_if(run.series.begin(), run.series.end(),
                                   [&](const OverlapSeries& s) { return same_configuration(s, key); });
            if (it == run.series.end()) it = run.series.insert(run.series.end(), std::move(key));
            it->cells.push_back(cell);
        } catch (const Json::exception& e) {
            throw std::runtime_error(where + "not a line of hiertune overlap --json (" + e.what() + ")");
        } catch (const std::runtime_error& e) {
            throw std::runtime_error(where + e.what());
        }
    }
    if (!have_settings)
        throw std::runtime_error(source + ": no settings object: not the output of hiertune overlap --json");
    if (run.series.empty()) throw std::runtime_error(source + ": no cell");
    return run;
}

std::vector<OverlapSeries> overlap_series_union(const std::vector<OverlapRun>& runs) {
    std::vector<OverlapSeries> all;
    for (const OverlapRun& run : runs)
        for (const OverlapSeries& series : run.series)
            if (std::none_of(all.begin(), all.end(),
                             [&](const OverlapSeries& s) { return same_configuration(s, series); }))
                all.push_back(series);
    return all;
}

std::string overlap_report_text(const std::vector<OverlapRun>& runs) {
    std::ostringstream out;
    out << "# ratio = (t_measured - max(t_comm, t_comp)) / min(t_comm, t_comp): 0 overlap, 1 none;\n"
        << "# (in parentheses): t_comm or t_comp < " << fixed(kSignificantShare * 100, 0)
        << "% of the other, not in the verdict\n";
    for (const OverlapSeries& wanted : overlap_series_union(runs)) {
        out << "\n## " << series_label(wanted) << '\n';
        for (const OverlapRun& run : runs) {
            const OverlapSeries* series = find_series(run, wanted);
            out << "# " << settings_label(run.settings) << " [" << run.source << "]\n";
            if (!series) {
                out << "  not measured in this run\n";
                continue;
            }
            const Axes axes = axes_of(*series);
            std::vector<std::vector<const OverlapCell*>> grid(
                axes.sizes.size(), std::vector<const OverlapCell*>(axes.comp_us.size(), nullptr));
            for (const OverlapCell& cell : series->cells)
                grid[index_of(axes.sizes, cell.bytes)][index_of(axes.comp_us, cell.comp_us)] = &cell;
            out << "  " << std::left << std::setw(8) << "size\\us" << std::right;
            for (const double us : axes.comp_us) out << std::setw(9) << us_text(us);
            out << '\n';
            for (std::size_t i = 0; i < axes.sizes.size(); ++i) {
                out << "  " << std::left << std::setw(8) << size_text(axes.sizes[i]) << std::right;
                for (const OverlapCell* cell : grid[i]) {
                    std::string text = "-";
                    if (cell) {
                        text = fixed(cell->ratio, 2);
                        if (!significant_cell(cell->t_comm_us, cell->t_comp_us)) text = "(" + text + ")";
                    }
                    out << std::setw(9) << text;
                }
                out << '\n';
            }
        }
        for (const OverlapRun& run : runs)
            if (const OverlapSeries* series = find_series(run, wanted))
                out << "# verdict, " << settings_label(run.settings) << ": "
                    << verdict_text(summarize_overlap(series->cells)) << '\n';
    }
    return out.str();
}

std::string overlap_heatmap_script(const std::vector<OverlapRun>& runs, const OverlapSeries& wanted,
                                   const std::string& png_path) {
    std::vector<const OverlapRun*> panels;
    for (const OverlapRun& run : runs)
        if (find_series(run, wanted)) panels.push_back(&run);
    if (panels.empty()) throw std::invalid_argument("overlap heat map: no run has " + series_label(wanted));

    // a panel wide enough for a 5-character label per column
    std::size_t columns = 0;
    for (const OverlapRun* run : panels) columns = std::max(columns, axes_of(*find_series(*run, wanted)).sizes.size());
    const std::size_t panel_width = std::max<std::size_t>(560, 160 + 56 * columns);
    std::ostringstream gp;
    gp << "# generated by hiertune overlap-report\n"
       << "set terminal pngcairo size " << panel_width * panels.size() << ",520 noenhanced\n"
       << "set output " << quoted(png_path) << '\n'
       << "set multiplot layout 1," << panels.size() << " title " << quoted(series_label(wanted)) << '\n'
       << "set palette defined (0 'black', 0.5 'purple', 1 'red', 1.5 'yellow')\n"
       << "set cbrange [0:1.5]\n"
       << "set cblabel 'overhead ratio (0 overlap, 1 none); grey: not significant'\n"
       << "set xlabel 'message size (bytes)'\n"
       << "set ylabel 'computation'\n";
    for (std::size_t p = 0; p < panels.size(); ++p) {
        const OverlapSeries& series = *find_series(*panels[p], wanted);
        const Axes axes = axes_of(series);
        // the cells by index: x size, y computation time; 4th column 1 = significant
        gp << "$cells" << p << " << EOD\n";
        for (const OverlapCell& cell : series.cells)
            gp << index_of(axes.sizes, cell.bytes) << ' ' << index_of(axes.comp_us, cell.comp_us) << ' '
               << fixed(cell.ratio, 4) << ' ' << (significant_cell(cell.t_comm_us, cell.t_comp_us) ? 1 : 0)
               << '\n';
        gp << "EOD\n";
        gp << "set title " << quoted(settings_label(panels[p]->settings)) << '\n';
        gp << "set xrange [-0.5:" << axes.sizes.size() - 0.5 << "]\n"
           << "set yrange [-0.5:" << axes.comp_us.size() - 0.5 << "]\n";
        gp << "set xtics (";
        for (std::size_t i = 0; i < axes.sizes.size(); ++i)
            gp << (i ? ", " : "") << quoted(size_text(axes.sizes[i])) << ' ' << i;
        gp << ")\nset ytics (";
        for (std::size_t i = 0; i < axes.comp_us.size(); ++i)
            gp << (i ? ", " : "") << quoted(time_tic(axes.comp_us[i])) << ' ' << i;
        gp << ")\n";
        // boxes, not `with image` (that needs a grid of at least 2 x 2); the cells left out
        // of the verdict grey, whatever their ratio (eq. (1) divides by a negligible time)
        const std::string data = "$cells" + std::to_string(p);
        gp << "plot " << data
           << " using 1:2:(0.5):(0.5):($4 == 1 ? $3 : NaN) with boxxyerror fs solid 1.0 noborder fc palette "
              "notitle, \\\n"
           << "     " << data
           << " using ($4 == 0 ? $1 : NaN):2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder "
              "fc rgb '#dddddd' notitle, \\\n"
           << "     " << data
           << " using 1:2:($4 == 1 && $3 < 0.8 ? sprintf('%.2f', $3) : '') with labels font ',8' tc rgb 'white' "
              "notitle, \\\n"
           << "     " << data
           << " using 1:2:($4 == 1 && $3 >= 0.8 ? sprintf('%.2f', $3) : '') with labels font ',8' tc rgb 'black' "
              "notitle, \\\n"
           << "     " << data
           << " using 1:2:($4 == 0 ? sprintf('%.2f', $3) : '') with labels font ',8' tc rgb '#777777' notitle\n";
    }
    gp << "unset multiplot\n";
    return gp.str();
}

std::string heatmap_file_name(const OverlapSeries& series) {
    std::string name = "overlap-" + series.operation + "-" + series.algorithm;
    for (const auto& [cvar, value] : series.params) {
        std::string short_name = cvar;
        if (short_name.rfind("MPIR_CVAR_", 0) == 0) short_name.erase(0, 10);
        name += "-" + short_name + "-" + value;
    }
    for (char& c : name) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) c = '_';
    }
    return name + ".png";
}

}  // namespace hiertune
