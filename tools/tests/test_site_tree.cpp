// install-tree: the site's tree and the record MPI_Init checks (hier_site.c).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "hiertune/tree/site_tree.hpp"
#include "hiertune/common/usage_error.hpp"
#include "temp_dir.hpp"

namespace hiertune {
namespace {

class SiteTree : public test::TempDirTest {
protected:
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = (dir_ / name).string();
        std::ofstream(path) << text;
        return path;
    }
    SiteRecord measured() const { return SiteRecord{"5.0.1", "", "vm", "4 nodes x 2", "2026-11-26T21:08:00Z", "", ""}; }
    static std::string read(const std::filesystem::path& path) {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const std::string good_ = R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}}})";
};

TEST_F(SiteTree, InstalledWithItsRecord) {
    const std::string tree = write("tree.json", good_);
    const std::filesystem::path prefix = dir_ / "prefix";
    const SiteRecord written = install_site_tree(tree, prefix, measured());
    const std::filesystem::path installed = prefix / "share" / "mpich-hier" / "tuning.json";
    EXPECT_EQ(site_tree_path(prefix), installed);
    EXPECT_EQ(read(installed), good_);
    EXPECT_EQ(written.tree_digest.rfind("fnv1a64:", 0), 0u) << written.tree_digest;
    EXPECT_EQ(written.source, tree);
    EXPECT_FALSE(written.installed.empty());
    const std::optional<SiteRecord> record = read_site_record(installed);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->mpich_version, "5.0.1");
    EXPECT_EQ(record->machine, "vm");
    EXPECT_EQ(record->cluster, "4 nodes x 2");
    EXPECT_EQ(record->measured, "2026-11-26T21:08:00Z");
    EXPECT_EQ(record->tree_digest, written.tree_digest);
    EXPECT_TRUE(site_tree_problems(installed, "5.0.1").empty());
    // nothing staged is left beside it
    EXPECT_FALSE(std::filesystem::exists(installed.string() + ".new"));
    EXPECT_FALSE(std::filesystem::exists(installed.string() + ".record.new"));
}

// the alpha / beta tune ran hier with: from TREE.latency_bytes, or named, into the record
// that MPI_Init reads it from (and accepts: hier_site.c)
TEST_F(SiteTree, TheLatencyBytesTuneRanWithGoIntoTheRecord) {
    const std::string tree = write("tree.json", good_);
    const std::filesystem::path prefix = dir_ / "prefix";
    EXPECT_EQ(read_tree_latency_bytes(tree), 0);
    EXPECT_EQ(install_site_tree(tree, prefix, measured()).latency_bytes, 0);
    EXPECT_EQ(read(site_record_path(site_tree_path(prefix))).find("latency_bytes"), std::string::npos);

    write_tree_latency_bytes(tree, 465);
    EXPECT_EQ(read(latency_bytes_path(tree)), "465\n");
    EXPECT_EQ(install_site_tree(tree, prefix, measured()).latency_bytes, 465);
    EXPECT_EQ(read_site_record(site_tree_path(prefix))->latency_bytes, 465);
    EXPECT_TRUE(site_tree_problems(site_tree_path(prefix), "5.0.1").empty());
    SiteRecord named = measured();
    named.latency_bytes = 900;  // install-tree --latency-bytes
    EXPECT_EQ(install_site_tree(tree, prefix, named).latency_bytes, 900);

    write_tree_latency_bytes(tree, 0);
    EXPECT_FALSE(std::filesystem::exists(latency_bytes_path(tree)));
    for (const char* bad : {"0\n", "-4\n", "465 bytes\n", "x"}) {
        write("tree.json.latency_bytes", bad);
        EXPECT_THROW(read_tree_latency_bytes(tree), UsageError) << bad;
        EXPECT_THROW(install_site_tree(tree, prefix, measured()), UsageError) << bad;
    }
}

TEST_F(SiteTree, RefusedByAnotherMpichOrWhenChanged) {
    const std::filesystem::path prefix = dir_ / "prefix";
    install_site_tree(write("tree.json", good_), prefix, measured());
    const std::filesystem::path installed = site_tree_path(prefix);
    std::vector<std::string> problems = site_tree_problems(installed, "5.0.2");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("measured on MPICH 5.0.1, this is MPICH 5.0.2"), std::string::npos) << problems[0];
    std::ofstream(installed, std::ios::app) << " ";
    problems = site_tree_problems(installed, "5.0.1");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("changed after it was installed"), std::string::npos) << problems[0];
}

TEST_F(SiteTree, ABadTreeIsNotInstalled) {
    const std::filesystem::path prefix = dir_ / "prefix";
    install_site_tree(write("good.json", good_), prefix, measured());
    const std::string bad = write("bad.json", R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_nothing": {}}})");
    try {
        install_site_tree(bad, prefix, measured());
        FAIL() << "installed a tree MPI_Init refuses";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("MPI_Init would refuse this tree"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("MPIR_Bcast_intra_nothing"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();  // one error line
    }
    // the installed tree is still the good one, and still vouched for
    EXPECT_EQ(read(site_tree_path(prefix)), good_);
    EXPECT_TRUE(site_tree_problems(site_tree_path(prefix), "5.0.1").empty());
}

TEST_F(SiteTree, NoRecordNoTree) {
    const std::filesystem::path tree = write("tuning.json", good_);
    EXPECT_FALSE(read_site_record(tree));
    const std::vector<std::string> problems = site_tree_problems(tree, "5.0.1");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("hiertune install-tree"), std::string::npos) << problems[0];
}

// TREE.ch4 beside the tree goes with it, checked as a CH4 tree, with a record of its own;
// a tree without one removes the earlier tree's
TEST_F(SiteTree, TheCh4TreeBesideItGoesWithIt) {
    const std::string ch4 =
        R"({"collective=bcast": {"comm_type=intra": {"composition=MPIDI_Bcast_intra_composition_gamma": {}}}})";
    const std::string tree = write("tree.json", good_);
    write("tree.json.ch4", ch4);
    const std::filesystem::path prefix = dir_ / "prefix";
    install_site_tree(tree, prefix, measured());
    const std::filesystem::path installed = ch4_tree_path(site_tree_path(prefix));
    EXPECT_EQ(installed.filename(), "tuning.json.ch4");
    EXPECT_EQ(read(installed), ch4);
    const std::optional<SiteRecord> record = read_site_record(installed);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->source, tree + ".ch4");
    EXPECT_NE(record->tree_digest, read_site_record(site_tree_path(prefix))->tree_digest);
    EXPECT_TRUE(site_ch4_tree_problems(site_tree_path(prefix), "5.0.1").empty());
    std::ofstream(installed, std::ios::app) << " ";
    const std::vector<std::string> problems = site_ch4_tree_problems(site_tree_path(prefix), "5.0.1");
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("changed after it was installed"), std::string::npos) << problems[0];

    std::filesystem::remove(tree + ".ch4");
    install_site_tree(tree, prefix, measured());
    EXPECT_FALSE(std::filesystem::exists(installed));
    EXPECT_FALSE(std::filesystem::exists(installed.string() + ".record"));
}

// a CH4 tree MPID_Init would refuse (an MPIR algorithm in it, a node-first reduce without
// its commutative guard) installs neither tree
TEST_F(SiteTree, ABadCh4TreeInstallsNeither) {
    const std::filesystem::path prefix = dir_ / "prefix";
    install_site_tree(write("good.json", good_), prefix, measured());
    const std::string other = R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}})";
    const std::string tree = write("other.json", other);
    for (const std::string& bad :
         {std::string(R"({"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}}})"),
          std::string(R"({"collective=reduce": {"comm_hierarchy=parent": )"
                      R"({"composition=MPIDI_Reduce_intra_composition_alpha": {}}}})")}) {
        write("other.json.ch4", bad);
        try {
            install_site_tree(tree, prefix, measured());
            FAIL() << "installed a CH4 tree MPID_Init refuses: " << bad;
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("other.json.ch4: MPI_Init would refuse this tree"), std::string::npos)
                << e.what();
        }
        EXPECT_EQ(read(site_tree_path(prefix)), good_);
        EXPECT_FALSE(std::filesystem::exists(ch4_tree_path(site_tree_path(prefix))));
    }
}

}  // namespace
}  // namespace hiertune
