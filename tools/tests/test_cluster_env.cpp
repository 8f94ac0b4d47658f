// The environment hiertune reads: machine names and the refusal of emulated cliques.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "hiertune/common/cluster_env.hpp"

namespace hiertune {
namespace {

TEST(ClusterEnv, MachineNameFromOptionThenEnvironment) {
    EXPECT_EQ(machine_name("given", "emucluster-100mbit"), "given");
    EXPECT_EQ(machine_name("", "emucluster-100mbit"), "emucluster-100mbit");
    EXPECT_EQ(machine_name("", ""), "");       // set but empty: as unset
    EXPECT_EQ(machine_name("", nullptr), "");  // the caller's fallback: rank 0's processor name
}

TEST(ClusterEnv, CliquesAboveOneAreRefused) {
    const std::optional<std::string> why = cliques_refusal("4");
    ASSERT_TRUE(why);
    EXPECT_EQ(*why,
              "MPIR_CVAR_NUM_CLIQUES=4: emulated nodes share one host's cores, so timings measure the scheduler, "
              "not the network; run on the emulated cluster (maint/emucluster run) or a real one, or pass "
              "--allow-cliques for correctness runs");
    EXPECT_TRUE(cliques_refusal("2"));
    EXPECT_TRUE(cliques_refusal("2 "));
    EXPECT_TRUE(cliques_refusal("99999999999999999999999"));  // overflows: still many
    EXPECT_EQ(cliques_error("--nodes 3").rfind("--nodes 3: emulated nodes share", 0), 0u);
}

TEST(ClusterEnv, OneCliqueOrNoneIsFine) {
    for (const char* value : {"", "0", "1", "-3", "abc", "2x", "-99999999999999999999999"})
        EXPECT_FALSE(cliques_refusal(value)) << value;
    EXPECT_FALSE(cliques_refusal(nullptr));
}

}  // namespace
}  // namespace hiertune
