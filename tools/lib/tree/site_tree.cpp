#include "hiertune/tree/site_tree.hpp"
#include "hiertune/tree/tree_coverage.hpp"

#include <chrono>
#include <ctime>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "hier_site.h"
#include "hiertune/tree/grammar.hpp"
#include "hiertune/common/usage_error.hpp"

namespace hiertune {

namespace {

std::string utc_text(std::time_t t) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

// The record's string fields, in the order written (hier_site.h: the keys MPI_Init checks).
const std::pair<const char*, std::string SiteRecord::*> kRecordFields[] = {
    {MPII_HIER_SITE_KEY_MPICH_VERSION, &SiteRecord::mpich_version},
    {MPII_HIER_SITE_KEY_TREE_DIGEST, &SiteRecord::tree_digest},
    {"machine", &SiteRecord::machine},
    {"cluster", &SiteRecord::cluster},
    {"measured", &SiteRecord::measured},
    {"installed", &SiteRecord::installed},
    {"source", &SiteRecord::source}};

std::string digest_of(const std::filesystem::path& file) {
    char digest[MPII_HIER_SITE_DIGEST_SIZE];
    if (MPII_Hier_site_digest(file.c_str(), digest) != 0)
        throw UsageError("cannot read " + file.string() + ": " + std::error_code(errno, std::generic_category()).message());
    return digest;
}

void write_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) throw UsageError("cannot write " + path.string());
}

// content written beside `to` and renamed over it: a job never reads half a file
void write_over(const std::filesystem::path& to, const std::string& content) {
    const std::filesystem::path temporary = to.string() + ".new";
    write_file(temporary, content);
    std::error_code error;
    std::filesystem::rename(temporary, to, error);
    if (error) throw UsageError("cannot move " + temporary.string() + " to " + to.string() + ": " + error.message());
}

}  // namespace

std::filesystem::path site_tree_path(const std::filesystem::path& prefix) {
    return prefix / MPII_HIER_SITE_TREE_DIR / MPII_HIER_SITE_TREE_NAME;
}

std::filesystem::path site_record_path(const std::filesystem::path& tree) {
    return tree.string() + MPII_HIER_SITE_RECORD_SUFFIX;
}

std::string utc_now() { return utc_text(std::time(nullptr)); }

std::string utc_mtime(const std::filesystem::path& file) {
    const auto since = std::filesystem::last_write_time(file) - std::filesystem::file_time_type::clock::now();
    const auto at = std::chrono::system_clock::now() + std::chrono::duration_cast<std::chrono::system_clock::duration>(since);
    return utc_text(std::chrono::system_clock::to_time_t(at));
}

namespace {

// The coverage file beside the tree (tune's) goes with it; an installed one of an
// earlier tree goes.
void install_coverage(const std::filesystem::path& tree, const std::filesystem::path& to) {
    std::ifstream in(coverage_path(tree), std::ios::binary);
    if (in) {
        write_over(coverage_path(to),
                   std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
        return;
    }
    std::error_code error;
    std::filesystem::remove(coverage_path(to), error);
}

}  // namespace

namespace {

void check_before_install(const std::string& tree, grammar::Level level) {
    const std::vector<std::string> problems = grammar::check_tree_file(tree, level);
    if (!problems.empty())  // one line, as hiertune's errors are
        throw UsageError(tree + ": MPI_Init would refuse this tree, not installed: " +
                         grammar::problems_line(problems));
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UsageError("cannot read " + path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// content beside `to` and its record (with its digest) over to's record; returns where
// content is, to be renamed over `to`
std::filesystem::path stage_with_record(const std::string& content, const std::filesystem::path& to,
                                        SiteRecord& record) {
    const std::filesystem::path staged = to.string() + ".new";
    write_file(staged, content);
    record.tree_digest = digest_of(staged);
    nlohmann::ordered_json json{{MPII_HIER_SITE_KEY_FORMAT, MPII_HIER_SITE_RECORD_FORMAT}};
    for (const auto& [key, field] : kRecordFields) json[key] = record.*field;
    if (record.latency_bytes > 0) json[MPII_HIER_SITE_KEY_LATENCY_BYTES] = record.latency_bytes;
    write_over(site_record_path(to), json.dump(2) + "\n");
    return staged;
}

void rename_into(const std::filesystem::path& staged, const std::filesystem::path& to) {
    std::error_code error;
    std::filesystem::rename(staged, to, error);
    if (error) throw UsageError("cannot move " + staged.string() + " to " + to.string() + ": " + error.message());
}

// The CH4 tree `from` (beside the tree installed, tune's) goes with it, with a record of
// its own; with none (empty), an installed one of an earlier tree goes.
void install_ch4_tree(const std::filesystem::path& from, const std::filesystem::path& to, SiteRecord record) {
    const std::filesystem::path ch4_to = ch4_tree_path(to);
    if (from.empty()) {
        std::error_code error;
        std::filesystem::remove(ch4_to, error);
        std::filesystem::remove(site_record_path(ch4_to), error);
        return;
    }
    record.source = std::filesystem::absolute(from).string();
    rename_into(stage_with_record(read_file(from.string()), ch4_to, record), ch4_to);
}

}  // namespace

std::filesystem::path latency_bytes_path(const std::filesystem::path& tree) {
    return tree.string() + ".latency_bytes";
}

void write_tree_latency_bytes(const std::filesystem::path& tree, std::int64_t bytes) {
    std::error_code error;
    if (bytes > 0)
        write_over(latency_bytes_path(tree), std::to_string(bytes) + "\n");
    else
        std::filesystem::remove(latency_bytes_path(tree), error);
}

std::int64_t read_tree_latency_bytes(const std::filesystem::path& tree) {
    std::ifstream in(latency_bytes_path(tree));
    if (!in) return 0;
    long long bytes = 0;
    std::string rest;
    if (!(in >> bytes) || bytes <= 0 || (in >> rest))
        throw UsageError(latency_bytes_path(tree).string() + ": not one integer > 0 (tune writes it)");
    return bytes;
}

std::filesystem::path ch4_tree_path(const std::filesystem::path& tree) {
    return tree.string() + MPII_HIER_SITE_CH4_SUFFIX;
}

SiteRecord install_site_tree(const std::string& tree, const std::filesystem::path& prefix, SiteRecord record) {
    check_before_install(tree, grammar::Level::mpir);
    std::filesystem::path ch4 = ch4_tree_path(tree);  // tune's, beside it; empty: none
    if (std::filesystem::exists(ch4))
        check_before_install(ch4.string(), grammar::Level::ch4);
    else
        ch4.clear();
    if (record.latency_bytes <= 0) record.latency_bytes = read_tree_latency_bytes(tree);
    const std::string content = read_file(tree);
    const std::filesystem::path to = site_tree_path(prefix);
    std::error_code error;
    std::filesystem::create_directories(to.parent_path(), error);
    if (error) throw UsageError("cannot create " + to.parent_path().string() + ": " + error.message());
    record.installed = utc_now();
    record.source = std::filesystem::absolute(tree).string();
    // the tree beside its place, its digest, the record, its CH4 tree, then the tree
    // renamed into place: a job in between refuses the old tree (the record's digest is
    // the new one's) and runs on MPICH's built-in trees (the CH4 one loads only with it)
    const std::filesystem::path staged = stage_with_record(content, to, record);
    install_ch4_tree(ch4, to, record);
    rename_into(staged, to);
    install_coverage(tree, to);
    return record;
}

std::optional<SiteRecord> read_site_record(const std::filesystem::path& tree) {
    std::ifstream in(site_record_path(tree));
    if (!in) return std::nullopt;
    const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    if (!json.is_object()) return std::nullopt;
    SiteRecord record;
    for (const auto& [key, field] : kRecordFields) {
        const auto found = json.find(key);
        if (found != json.end() && found->is_string()) record.*field = found->get<std::string>();
    }
    const auto latency = json.find(MPII_HIER_SITE_KEY_LATENCY_BYTES);
    if (latency != json.end() && latency->is_number_integer()) record.latency_bytes = latency->get<std::int64_t>();
    return record;
}

std::vector<std::string> site_tree_problems(const std::filesystem::path& tree, const std::string& mpich_version) {
    char why[1024];
    if (MPII_Hier_site_record_problem(tree.c_str(), mpich_version.c_str(), why, sizeof(why)) != 0) return {why};
    return grammar::check_tree_file(tree.string(), grammar::Level::mpir);
}

std::vector<std::string> site_ch4_tree_problems(const std::filesystem::path& tree, const std::string& mpich_version) {
    char why[1024];
    const std::filesystem::path ch4 = ch4_tree_path(tree);
    if (MPII_Hier_site_record_problem(ch4.c_str(), mpich_version.c_str(), why, sizeof(why)) != 0) return {why};
    return grammar::check_tree_file(ch4.string(), grammar::Level::ch4);
}

}  // namespace hiertune
