#include "server/event_channel.h"

#include <gtest/gtest.h>

#include <string>

namespace lingcast {
namespace {

using Next = EventChannel::Next;

TEST(EventChannelTest, DeliversInOrder) {
  EventChannel channel(8);
  EXPECT_TRUE(channel.Send("a"));
  EXPECT_TRUE(channel.Send("b"));
  std::string message;
  ASSERT_EQ(channel.TakeNext(&message), Next::kMessage);
  EXPECT_EQ(message, "a");
  ASSERT_EQ(channel.TakeNext(&message), Next::kMessage);
  EXPECT_EQ(message, "b");
  EXPECT_EQ(channel.TakeNext(&message), Next::kIdle);
  EXPECT_TRUE(channel.open());
}

TEST(EventChannelTest, WakesTheWriterForTheFirstMessageOnly) {
  EventChannel channel(8);
  int wakes = 0;
  channel.SetWaker([&] { ++wakes; });
  EXPECT_EQ(wakes, 0);
  channel.Send("a");
  channel.Send("b");  // the writer, woken for "a", takes "b" after it
  EXPECT_EQ(wakes, 1);
  std::string message;
  channel.TakeNext(&message);
  channel.TakeNext(&message);
  channel.Send("c");
  EXPECT_EQ(wakes, 2);
}

TEST(EventChannelTest, WhatWasSentBeforeTheWriterWasReadyWakesItAtOnce) {
  EventChannel channel(8);
  channel.Send("early");
  int wakes = 0;
  channel.SetWaker([&] { ++wakes; });
  EXPECT_EQ(wakes, 1);
}

TEST(EventChannelTest, AFullQueueDropsTheClientInsteadOfGrowing) {
  EventChannel channel(3);
  int wakes = 0;
  channel.SetWaker([&] { ++wakes; });
  EXPECT_TRUE(channel.Send("1"));
  EXPECT_TRUE(channel.Send("2"));
  EXPECT_TRUE(channel.Send("3"));
  EXPECT_FALSE(channel.Send("4"));
  EXPECT_FALSE(channel.open());
  EXPECT_TRUE(channel.overflowed());
  EXPECT_EQ(wakes, 2);  // the first message, then the overflow: the writer must drop the connection
  std::string message;
  EXPECT_EQ(channel.TakeNext(&message), Next::kAbort);
  EXPECT_FALSE(channel.Send("5"));
}

TEST(EventChannelTest, CloseSendsWhatIsQueuedThenCloses) {
  EventChannel channel(8);
  channel.Send("last");
  channel.Close();
  EXPECT_FALSE(channel.open());
  EXPECT_FALSE(channel.Send("too late"));
  std::string message;
  ASSERT_EQ(channel.TakeNext(&message), Next::kMessage);
  EXPECT_EQ(message, "last");
  EXPECT_EQ(channel.TakeNext(&message), Next::kClose);
  EXPECT_FALSE(channel.overflowed());
}

TEST(EventChannelTest, DetachEndsItAndSilencesTheWaker) {
  EventChannel channel(8);
  int wakes = 0;
  channel.SetWaker([&] { ++wakes; });
  channel.Detach();
  EXPECT_FALSE(channel.open());
  EXPECT_FALSE(channel.Send("x"));
  channel.Close();
  EXPECT_EQ(wakes, 0);
  std::string message;
  EXPECT_EQ(channel.TakeNext(&message), Next::kAbort);
}

}  // namespace
}  // namespace lingcast
