package sources

import (
	"errors"
	"testing"
)

func TestGroup(t *testing.T) {
	g := NewGroup()
	var order []string
	rel := func(name string, err error) func() error {
		return func() error { order = append(order, name); return err }
	}
	if err := g.Put("pg:db1", "snap-1", rel("first", nil)); err != nil {
		t.Fatal(err)
	}
	if err := g.Put("pg:db1", "snap-2", rel("dup", nil)); err != nil {
		t.Fatal(err)
	}
	if v, ok := g.Get("pg:db1"); !ok || v != "snap-1" {
		t.Errorf("Get = %v, %v; the first value put stays", v, ok)
	}
	boom := errors.New("boom")
	g.Put("mysql:db2", 2, rel("second", boom))
	if err := g.Close(); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want the release error", err)
	}
	if want := []string{"dup", "second", "first"}; len(order) != 3 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Errorf("release order %v, want %v (a duplicate at once, then last kept first)", order, want)
	}
	if _, ok := g.Get("pg:db1"); ok {
		t.Error("a closed group still holds values")
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	var nilGroup *Group
	released := false
	nilGroup.Put("k", 1, func() error { released = true; return nil })
	if _, ok := nilGroup.Get("k"); ok || !released {
		t.Error("a nil group must release at once and hold nothing")
	}
}
