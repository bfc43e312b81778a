// Optional host script for pages that embed the lesson in an iframe and have no resizer of their own
// (H5P and Canvas already understand the lesson's messages). Add data-qkv-lesson to the iframe:
//   <iframe data-qkv-lesson src="https://example.org/lesson/embed.html" title="..."></iframe>
//   <script src="https://example.org/lesson/qkv-embed-host.js" defer></script>
(function () {
  if (window.qkvEmbedHostReady) return;
  window.qkvEmbedHostReady = true;
  window.addEventListener('message', function (event) {
    var data = event.data;
    if (!data || typeof data !== 'object' || data.type !== 'qkv-lesson:height') return;
    if (typeof data.height !== 'number' || !isFinite(data.height) || data.height < 0) return;
    var frames = document.querySelectorAll('iframe[data-qkv-lesson]');
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      // Only the frame that sent it, and only from the origin it was loaded from.
      if (frame.contentWindow !== event.source) continue;
      if (new URL(frame.src, location.href).origin !== event.origin) continue;
      frame.style.height = Math.ceil(data.height) + 'px';
    }
  });
})();
