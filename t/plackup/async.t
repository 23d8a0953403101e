# plackup -s Kamado --enable-async (plackup's spelling of a flag): code written for AnyEvent and for Mojo
# (Mojo::IOLoop on its EV reactor, Mojo::UserAgent, Mojolicious::Lite)
# runs unchanged in the worker's loop, with psgi.nonblocking true.
use strict;
use warnings;
use lib 't/lib';
use Test::More;
use Time::HiRes ();
use Kamado::Test qw(read_response eventually);
use Kamado::Test::Plackup qw(start_plackup free_port);

# AnyEvent: a delayed response from a timer, and AnyEvent::HTTP calling
# the worker itself (only an async worker can answer its own sub-request)
my $port = free_port();
my $ae = start_plackup(port => $port, args => ['--port', $port, '-E', 'deployment', '--enable-async'], app => <<'APP');
use AnyEvent;
use AnyEvent::HTTP;
sub {
    my ($env) = @_;
    return [200, ['Content-Type' => 'text/plain'], ["inner nb=" . ($env->{'psgi.nonblocking'} ? 1 : 0)]]
        if $env->{PATH_INFO} eq '/inner';
    return sub {
        my ($r) = @_;
        http_get "http://127.0.0.1:$env->{SERVER_PORT}/inner", sub {
            my ($body, $h) = @_;
            my $t; $t = AE::timer 0.1, 0, sub { undef $t; $r->([200, ['Content-Type' => 'text/plain'], ["outer got: $body"]]) };
        };
    };
}
APP
my $res = read_response($ae->send_get('/outer'));
is $res && $res->{body}, 'outer got: inner nb=1', 'AnyEvent::HTTP and AE timers in an async worker under plackup';
is $ae->stop, 0, 'stops';

# Mojo: Mojo::IOLoop's timers run in the worker's EV loop, and
# Mojo::UserAgent fetches without blocking
$port = free_port();
my $mojo = start_plackup(port => $port, args => ['--port', $port, '-E', 'deployment', '--enable-async'], app => <<'APP');
use Mojolicious::Lite -signatures;
use Mojo::IOLoop;
use Mojo::UserAgent;
my $ticks = 0;
my $ua = Mojo::UserAgent->new;
get '/start' => sub ($c) {
    Mojo::IOLoop->recurring(0.05 => sub { $ticks++ }) unless $main::timer++;
    $c->render(text => 'reactor=' . ref(Mojo::IOLoop->singleton->reactor));
};
get '/ticks' => sub ($c) { $c->render(text => "ticks=$ticks") };
get '/hello' => sub ($c) { $c->render(text => 'hello from mojo') };
my $mojo_app = app->start;
sub {
    my ($env) = @_;
    return $mojo_app->($env) unless $env->{PATH_INFO} eq '/ua';
    return sub {
        my ($r) = @_;
        $ua->get("http://127.0.0.1:$env->{SERVER_PORT}/hello" => sub ($ua, $tx) {
            $r->([200, ['Content-Type' => 'text/plain'], ['ua got: ' . $tx->res->body]]);
        });
    };
};
APP
$res = read_response($mojo->send_get('/start'));
is $res && $res->{body}, 'reactor=Mojo::Reactor::EV', 'Mojolicious::Lite under plackup -s Kamado --async, on EV';
my $ticks = 0;
ok eventually(sub {
    my $r = read_response($mojo->send_get('/ticks'));
    ($ticks) = ($r && $r->{body} // '') =~ /ticks=(\d+)/;
    ($ticks // 0) >= 5;
}, 10), "Mojo::IOLoop->recurring runs between requests ($ticks ticks)";
$res = read_response($mojo->send_get('/ua'));
is $res && $res->{body}, 'ua got: hello from mojo', 'Mojo::UserAgent non-blocking in a delayed response';
is $mojo->stop, 0, 'stops';
unlike $ae->log . $mojo->log, qr/\[error\]/, 'no error logged';

done_testing;
