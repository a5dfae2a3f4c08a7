// Draws the overview's charts from the series the server embedded in the page (no extra request).
(function () {
  const series = JSON.parse(document.getElementById('series').textContent);
  const dayRange = series.starts.length > 60;
  const labels = series.starts.map(function (ms) {
    const d = new Date(ms);
    return d.toISOString().substring(11, 16);
  });
  function chart(id, datasets, type) {
    new Chart(document.getElementById(id), {
      type: type || 'line',
      data: { labels: labels, datasets: datasets },
      options: { animation: false, responsive: true, maintainAspectRatio: true, aspectRatio: 2.4,
        scales: { y: { beginAtZero: true } }, plugins: { legend: { display: datasets.length > 1 } },
        elements: { point: { radius: dayRange ? 0 : 2 } } }
    });
  }
  chart('chart-deliveries', [
    { label: 'deliveries', data: series.deliveries, borderColor: '#1e7a3c', backgroundColor: '#1e7a3c' },
    { label: 'failed attempts', data: series.failures, borderColor: '#b3261e', backgroundColor: '#b3261e' }
  ], 'bar');
  chart('chart-lateness', [{ label: 'p99 ms', data: series.latenessP99Ms, borderColor: '#2f5fd0' }]);
  chart('chart-backlog', [{ label: 'backlog', data: series.backlog, borderColor: '#8a5a00', fill: false }]);
  document.body.setAttribute('data-charts', 'drawn');
})();
