// The course page's side: log every answer statement, from the element (a DOM event) and from the iframe
// (a postMessage). A real course would add the learner as actor and send the statement to its LRS.
(function () {
  var log = document.getElementById('answer-log');
  function record(source, statement) {
    var item = document.createElement('li');
    item.textContent = source + ': ' + statement.object.id + ' → ' + (statement.result.success ? 'correct' : 'incorrect') +
      ' (response "' + statement.result.response + '")';
    log.append(item);
  }
  document.addEventListener('qkv-lesson-answer', function (event) {
    record('element', event.detail);
  });
  window.addEventListener('message', function (event) {
    var frame = document.querySelector('iframe[data-qkv-lesson]');
    if (!frame || event.source !== frame.contentWindow || event.origin !== location.origin) return;
    var data = event.data;
    if (!data || typeof data !== 'object' || data.type !== 'qkv-lesson:answer' || !data.statement) return;
    record('iframe', data.statement);
  });
})();
