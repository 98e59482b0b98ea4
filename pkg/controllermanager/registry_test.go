package controllermanager

import "testing"

func TestEnabled(t *testing.T) {
	saved := controllers
	defer func() { controllers = saved }()
	controllers = map[string]controller{"a": {}, "b": {}, "c": {offByDefault: true}}
	cases := []struct {
		list []string
		want map[string]bool
	}{
		{[]string{"*"}, map[string]bool{"a": true, "b": true, "c": false}},
		{[]string{"-a", "*"}, map[string]bool{"a": false, "b": true, "c": false}},
		{[]string{"*", "-a"}, map[string]bool{"a": false, "b": true, "c": false}}, // explicit entries beat '*'
		{[]string{"a", "-a"}, map[string]bool{"a": true, "b": false, "c": false}}, // first explicit entry wins
		{[]string{"c", "*"}, map[string]bool{"a": true, "b": true, "c": true}},
		{[]string{"b"}, map[string]bool{"a": false, "b": true, "c": false}},
	}
	for _, tc := range cases {
		for name, want := range tc.want {
			if got := enabled(name, tc.list); got != want {
				t.Errorf("enabled(%s, %v) = %v, want %v", name, tc.list, got, want)
			}
		}
	}
	if err := validateControllers([]string{"*", "-a", "typo"}); err == nil {
		t.Error("unknown controller accepted")
	}
}
