#!/bin/sh
# The HTML report as a browser shows it: captured runs' reports rendered by
# headless Chromium, and checked in the page it rendered (a script added
# to a copy of each report, run after load):
#  - the text a reader sees (innerText) has no inf%, n/a% or nan%;
#  - every <img> decoded and has a size (the plots are SVG data: URIs);
#  - every plot has its axes: its SVG laid out in the page, at least two
#    numeric tick labels right-aligned on one x (the y axis) and a label
#    below them (the x axis: ticks, kernel names or its title).
# A screenshot of each report is kept beside the results for a reader.
# Without Chromium this fails under CI (.ci/run installs it and sets
# WBLAB_CI) and says it did not run elsewhere. Run by make check-unit and
# make check (tests/run-unit.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
fail=0
checks=0

chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$chrome" ]; then
	if [ -n "${WBLAB_CI:-}" ]; then
		echo "FAIL - html: no chromium to render the report (.ci/run installs it: apt-get install chromium)"
		exit 1
	fi
	echo "# html: NOT RUN: no chromium (apt-get install chromium); under CI this fails"
	exit 0
fi
R=${WBLAB_E2E_DIR:-$(mktemp -d /tmp/wblab-html.XXXXXX)}

# Added before </body> of a copy: writes its verdict into the page, which
# --dump-dom prints once the page has loaded.
check_js='<script>
window.addEventListener("load", function () {
  var bad = [], plots = 0;
  var m = document.body.innerText.match(/[-+]?(inf|nan|n\/a) ?%/gi);
  if (m) bad.push("text has " + m.slice(0, 5).join(" "));
  document.querySelectorAll("img").forEach(function (img, i) {
    var src = img.getAttribute("src") || "", pre = "data:image/svg+xml;base64,";
    if (!img.complete || !img.naturalWidth) {
      bad.push("img " + i + " (" + img.alt + ") not rendered");
      return;
    }
    if (src.indexOf(pre) !== 0) return;
    plots++;
    var div = document.createElement("div");
    div.innerHTML = atob(src.slice(pre.length));
    document.body.appendChild(div);
    var labels = [], right = {}, ybottom = -1, below = 0, yaxis = 0;
    div.querySelectorAll("text").forEach(function (t) {
      var s = t.textContent.trim(), r = t.getBoundingClientRect();
      if (s && r.width > 0) labels.push({ s: s, r: r });
    });
    labels.forEach(function (o) {
      if (!/^-?[0-9.]+(e[-+]?[0-9]+)?%?$/i.test(o.s)) return;
      var k = Math.round(o.r.right);
      right[k] = (right[k] || []).concat([o]);
    });
    Object.keys(right).forEach(function (k) {
      if (right[k].length < 2 || right[k].length <= yaxis) return;
      yaxis = right[k].length;
      ybottom = Math.max.apply(null, right[k].map(function (o) { return o.r.bottom; }));
    });
    labels.forEach(function (o) { if (yaxis && o.r.top >= ybottom - 1) below++; });
    if (yaxis < 2 || !below)
      bad.push("plot " + i + " (" + img.alt + "): " + (yaxis < 2 ? "no y axis" : "no x axis"));
    div.remove();
  });
  var out = document.createElement("pre");
  out.id = "wblab-check";
  out.textContent = (bad.length ? "BAD " + bad.join("; ") : "OK") + " plots=" + plots;
  document.body.appendChild(out);
});
</script>'

# check NAME RUN...: the report of the runs, rendered and checked.
check() {
	name=$1
	shift
	html="$R/$name.html"
	if ! ./wblab report --format html -o "$html" "$@" 2>"$R/$name.err"; then
		echo "FAIL - html $name: wblab report: $(head -c 300 "$R/$name.err")"
		fail=1
		return
	fi
	# The copy with the checker; the report itself stays as written.
	awk -v js="$check_js" '/<\/body>/ && !done { print js; done = 1 } { print }' \
		"$html" >"$R/$name.checked.html"
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$R/profile" --virtual-time-budget=10000 \
		--dump-dom "file://$R/$name.checked.html" >"$R/$name.dom" 2>"$R/$name.chrome.log"
	timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$R/profile" --window-size=1280,2400 \
		--screenshot="$R/$name.png" "file://$html" >/dev/null 2>>"$R/$name.chrome.log"
	verdict=$(sed -n 's/.*<pre id="wblab-check">\([^<]*\)<\/pre>.*/\1/p' "$R/$name.dom")
	checks=$((checks + 1))
	case "$verdict" in
	"OK plots="[1-9]*)
		echo "ok   - html $name: rendered by $(basename "$chrome"), no inf%/n/a%/nan%, every plot has its axes (${verdict#OK })"
		;;
	*)
		echo "FAIL - html $name: ${verdict:-no verdict: the page did not load (see $R/$name.chrome.log)}"
		fail=1
		;;
	esac
}

t0=$(date +%s)
check ab tests/data/report/ab
check lab-stall tests/data/report/lab-stall
check seeky tests/data/report/seeky/20261204-231712-2441 \
	tests/data/report/seeky/20261204-232601-2861 tests/data/report/seeky/20261205-004311-71d7
rm -rf "$R/profile"
echo "# html: $checks reports in $(($(date +%s) - t0)) s, load $(cut -d' ' -f1-3 /proc/loadavg); screenshots in $R"
[ $checks -gt 0 ] && [ $fail -eq 0 ]
