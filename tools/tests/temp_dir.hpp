// A fresh directory per test, removed afterwards (TEST_TMPDIR honoured), and a database
// path in it: the base of every fixture that writes files.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace hiertune::test {

class TempDirTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = ::testing::TempDir() + "hiertune_XXXXXX";
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
        path_ = (dir_ / "measurements.sqlite").string();
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }

    std::filesystem::path dir_;
    std::string path_;  // a database in dir_ (not created)
};

}  // namespace hiertune::test
