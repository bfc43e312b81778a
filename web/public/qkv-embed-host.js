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

  // A browser does not render a cross-origin frame far from the viewport, so such a frame notices no change of
  // its height by itself: ask each frame for its height when it has loaded, and again as it nears the viewport
  // (before the learner sees it). The frame answers with its height message.
  function ask(frame) {
    if (!frame.contentWindow || !frame.src || !loaded(frame)) return;
    frame.contentWindow.postMessage({ type: 'qkv-lesson:height-request' }, new URL(frame.src, location.href).origin);
  }
  // Only a loaded frame is asked: until then it holds the initial about:blank, and a message to the lesson's
  // origin would be refused with an error on the console. A document from another origin is unreadable.
  function loaded(frame) {
    try {
      var doc = frame.contentDocument;
      return !doc || (doc.readyState === 'complete' && doc.URL !== 'about:blank');
    } catch (error) {
      return true;
    }
  }
  // Near: within a viewport's height above or below the viewport.
  var near = null;
  if ('IntersectionObserver' in window) {
    near = new IntersectionObserver(function (entries) {
      for (var i = 0; i < entries.length; i++) if (entries[i].isIntersecting) ask(entries[i].target);
    }, { rootMargin: '100% 0px' });
  }
  function watch(frame) {
    ask(frame);
    if (near) near.observe(frame); // observing a frame twice is the same as once
  }
  // Load events do not bubble, but the document sees them while capturing: frames added later are asked too.
  document.addEventListener('load', function (event) {
    var target = event.target;
    if (target instanceof HTMLIFrameElement && target.matches('iframe[data-qkv-lesson]')) watch(target);
  }, true);
  function start() {
    var frames = document.querySelectorAll('iframe[data-qkv-lesson]');
    for (var i = 0; i < frames.length; i++) watch(frames[i]);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
