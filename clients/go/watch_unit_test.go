package ramino

import (
	"testing"

	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
)

func TestSplitGivesABatchsEventsOneAtATimeInOrder(t *testing.T) {
	var events []*raminov1.GameEvent
	for v := int64(5); v <= 7; v++ {
		events = append(events, &raminov1.GameEvent{Version: v, Event: &raminov1.GameEvent_Discarded{Discarded: &raminov1.Discarded{CardId: int32(v)}}})
	}
	batch := &raminov1.WatchGameResponse{Version: 7, Payload: &raminov1.WatchGameResponse_Events{Events: &raminov1.GameEvents{Events: events}}}
	items := Split(batch)
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	for i, item := range items {
		if item.GetVersion() != int64(5+i) || item.GetEvent() != events[i] {
			t.Fatalf("item %d: version %d, event %v", i, item.GetVersion(), item.GetEvent())
		}
	}
	one := &raminov1.WatchGameResponse{Version: 8, Payload: &raminov1.WatchGameResponse_Event{Event: events[0]}}
	if got := Split(one); len(got) != 1 || got[0] != one {
		t.Fatalf("a single event split into %v", got)
	}
}
