package Kamado::Test::WebDriver;
use 5.024;
use strict;
use warnings;

# chromedriver on a port of its own, driven through its W3C WebDriver HTTP
# API, and stopped by its pid: what the tests that load a page in headless
# Chromium share (t/status/browser.t, t/async/browser.t).

use HTTP::Tiny;
use JSON::PP ();
use POSIX ();
use Kamado ();
use Kamado::Test qw(eventually);
use Kamado::Test::Plackup qw(free_port);

# Starts DRIVER (the chromedriver binary), its log in DIR/chromedriver.log;
# waits up to 15 s for it to say it is ready (ready() tells whether it did).
sub start {
    my ($class, $driver, $dir) = @_;
    my $port = free_port();
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        open STDOUT, '>', "$dir/chromedriver.log" or POSIX::_exit(111);
        open STDERR, '>&', \*STDOUT or POSIX::_exit(111);
        Kamado::set_parent_death_signal(POSIX::SIGTERM());
        exec $driver, "--port=$port" or POSIX::_exit(111);
    }
    my $self = bless {
        pid  => $pid,
        dir  => $dir,
        url  => "http://127.0.0.1:$port",
        http => HTTP::Tiny->new(timeout => 30),
        json => JSON::PP->new->canonical,
    }, $class;
    $self->{ready} = eventually(
        sub {
            my $r = $self->{http}->get("$self->{url}/status");
            $r->{success} && $self->{json}->decode($r->{content})->{value}{ready};
        },
        15
    );
    return $self;
}

sub ready { $_[0]{ready} }

# One WebDriver command: its value, or a die naming the command.
sub call {
    my ($self, $method, $path, $body) = @_;
    my $res = $self->{http}->request(
        $method, "$self->{url}$path",
        $body ? {content => $self->{json}->encode($body), headers => {'Content-Type' => 'application/json'}} : {}
    );
    my $data = eval { $self->{json}->decode($res->{content}) } // {};
    die "WebDriver $method $path: $res->{status} " . ($data->{value}{message} // $res->{content}) . "\n"
        unless $res->{success};
    return $data->{value};
}

# A headless session of CHROMIUM (its profile under the driver's DIR),
# with EXTRA command-line arguments: its id.
sub session {
    my ($self, $chromium, @extra) = @_;
    return $self->call(
        POST => '/session',
        {
            capabilities => {
                alwaysMatch => {
                    browserName => 'chrome',
                    'goog:chromeOptions' => {
                        binary => $chromium,
                        args => [
                            '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                            @extra, "--user-data-dir=$self->{dir}/profile"
                        ],
                    },
                }
            }
        }
    )->{sessionId};
}

# Stops the driver and waits for it.
sub stop {
    my ($self) = @_;
    return unless $self->{pid};
    kill TERM => $self->{pid};
    waitpid $self->{pid}, 0;
    delete $self->{pid};
}

1;
__END__

=head1 NAME

Kamado::Test::WebDriver - chromedriver for the tests that drive headless Chromium

=head1 SYNOPSIS

    my $wd = Kamado::Test::WebDriver->start('/usr/bin/chromedriver', $dir);
    ok $wd->ready, 'chromedriver is ready';
    my $sid = $wd->session('/usr/bin/chromium', '--window-size=1280,900');
    $wd->call(POST => "/session/$sid/url", {url => $page});
    $wd->stop;

=cut
